#include "lib/config/config.h"  // moved; this forwarding header goes at the merge of issue 9
