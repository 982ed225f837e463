// libpcap for NetsimPcap: writing synthesized captures and reading any capture libpcap reads.
#include <pcap/pcap.h>
