// Checks of a loaded profile that span rows or tables (each value is checked on its
// own by RowReader): "" when the rows hold together, else what is wrong, naming the
// table and row, for a "damaged" error.
#ifndef CUSCOPE_LIB_STORE_LOAD_CHECKS_H_
#define CUSCOPE_LIB_STORE_LOAD_CHECKS_H_

#include <string>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::store {

// Records name devices by id: two devices of one id would make them ambiguous.
std::string DuplicateDeviceId(const std::vector<model::DeviceInfo>& devices);

// PC samples: function ids unique and not 0; every pc_samples and pc_lines row names a
// function of sampled_functions.
std::string CheckLoadedPcSamples(const model::Profile& profile);

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_LOAD_CHECKS_H_
