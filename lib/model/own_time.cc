#include "lib/model/own_time.h"

#include <tuple>

namespace cuscope::model {

bool OwnInterval::operator==(const OwnInterval& o) const {
  return std::tie(start_ns, end_ns, kind, thread_id, device_id, context_id, first_correlation_id,
                  last_correlation_id, launches) ==
         std::tie(o.start_ns, o.end_ns, o.kind, o.thread_id, o.device_id, o.context_id,
                  o.first_correlation_id, o.last_correlation_id, o.launches);
}

}  // namespace cuscope::model
