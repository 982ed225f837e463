#include <stdlib.h>

// The live tests' proxies, benches and peers run on NIO's singleton event loops, which NIO
// makes one a core. In one test process, four lanes of live tests (PlaysLive) share them, where
// scripts/test.sh's four processes had two each; on two, the lanes' timers and reads waited on
// each other, enough to move a live bench's WebSocket bytes 15% off the model's. So the test
// process asks for eight, two a lane. NIO reads NIO_SINGLETON_GROUP_LOOP_COUNT when the
// singleton is first made, and crashes if its setter runs after that, so the variable is set
// here, as the process loads, before any test; a value already in the environment is kept.
__attribute__((constructor)) static void netsimTestLoops(void) {
    setenv("NIO_SINGLETON_GROUP_LOOP_COUNT", "8", 0);
}
