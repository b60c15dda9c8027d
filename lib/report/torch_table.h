// `cuscope report --by=op|line`: kernels and GPU time by PyTorch operator or by Python
// line (analysis/torch_summary.h), as text, CSV or JSON.
#ifndef CUSCOPE_LIB_REPORT_TORCH_TABLE_H_
#define CUSCOPE_LIB_REPORT_TORCH_TABLE_H_

#include <ostream>

#include "lib/analysis/torch_summary.h"

namespace cuscope::report {

enum class TorchBy { kOp, kLine };
enum class TorchFormat { kText, kCsv, kJson };

// `top`: rows at most (0: all). Text says in one line when the profile has no PyTorch
// ranges (recorded without `cuscope run --pytorch`).
void WriteTorchTable(const analysis::TorchSummary& s, TorchBy by, TorchFormat format, int top,
                     std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TORCH_TABLE_H_
