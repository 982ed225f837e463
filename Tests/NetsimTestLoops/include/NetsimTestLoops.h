// Sets NIO's singleton event loop count for the test process before anything runs: see
// NetsimTestLoops.c. Nothing to call; linking the target is enough.
