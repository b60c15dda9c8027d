#include "lib/collect/pc_records.h"

#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "lib/model/utf8.h"

namespace cuscope::collect {

ReadSourceLine FileSourceReader() {
  // Each file's lines, read once; nullopt for a file that could not be read.
  auto files = std::make_shared<std::map<std::string, std::optional<std::vector<std::string>>>>();
  return [files](const std::string& path, uint32_t line) -> std::optional<std::string> {
    auto it = files->find(path);
    if (it == files->end()) {
      std::optional<std::vector<std::string>> lines;
      std::ifstream in(path, std::ios::binary);
      in.seekg(0, std::ios::end);
      const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
      if (size >= 0 && size <= (16 << 20)) {
        in.seekg(0);
        lines.emplace();
        std::string text;
        while (std::getline(in, text)) lines->push_back(std::move(text));
      }
      it = files->emplace(path, std::move(lines)).first;
    }
    if (!it->second || line == 0 || line > it->second->size()) return std::nullopt;
    return (*it->second)[line - 1];
  };
}

void PcRecords::ModuleLoaded(uint64_t crc, const void* cubin, size_t size) {
  Cubin& c = cubins_[crc];
  c.owned.clear();
  c.bytes = cubin;
  c.size = size;
}

void PcRecords::ModuleUnloading(uint64_t crc) {
  auto it = cubins_.find(crc);
  if (it == cubins_.end() || !it->second.owned.empty()) return;
  Cubin& c = it->second;
  const auto* bytes = static_cast<const unsigned char*>(c.bytes);
  c.owned.assign(bytes, bytes + c.size);
  c.bytes = c.owned.data();
  unloaded_.push_back(crc);
}

uint32_t PcRecords::FunctionId(const RawPc& pc, uint32_t device) {
  auto [it, made] = functions_.try_emplace({pc.cubin_crc, pc.function}, 0);
  if (!made) return it->second;
  it->second = static_cast<uint32_t>(functions_.size());
  model::SampledFunction& f = pending_.sampled_functions.emplace_back();
  f.id = it->second;
  f.device_id = device;
  f.cubin_crc = pc.cubin_crc;
  f.name = pending_.strings.Intern(pc.function);
  return f.id;
}

void PcRecords::AddText(model::StringId file, const std::string& path, uint32_t line) {
  if (!texts_seen_.insert({path, line}).second || !read_) return;
  std::optional<std::string> text = read_(path, line);
  if (!text) return;
  if (text->size() > model::kMaxSourceTextBytes) text->resize(model::kMaxSourceTextBytes);
  if (!text->empty() && text->back() == '\r') text->pop_back();
  pending_.source_text.push_back({file, line, model::ReplaceInvalidUtf8(*text)});
}

void PcRecords::AddLine(uint32_t function, const RawPc& pc) {
  if (!pcs_seen_.insert({function, pc.pc_offset}).second) return;
  auto it = cubins_.find(pc.cubin_crc);
  if (it == cubins_.end()) {
    ++totals_.no_cubin;
    return;
  }
  std::optional<PcSourceLine> line =
      calls_->LineOf(it->second.bytes, it->second.size, pc.function, pc.pc_offset);
  if (!line) return;
  const model::StringId file = pending_.strings.Intern(line->file);
  pending_.pc_lines.push_back({function, pc.pc_offset, file, line->line});
  AddText(file, line->file, line->line);
}

void PcRecords::Add(const RawPcData& data, uint32_t device,
                    const std::map<uint32_t, std::string>& stall_names) {
  totals_.samples += data.total_samples;
  totals_.dropped += data.dropped_samples;
  totals_.non_user += data.non_user_samples;
  totals_.buffer_full = totals_.buffer_full || data.buffer_full;
  for (const RawPc& pc : data.pcs) {
    const uint32_t function = FunctionId(pc, device);
    AddLine(function, pc);
    for (const auto& [index, samples] : pc.stalls) {
      if (samples == 0) continue;
      auto name = stall_names.find(index);
      const model::StringId stall = pending_.strings.Intern(
          name != stall_names.end() ? name->second : absl::StrCat("stall_", index));
      auto [at, made] =
          count_at_.try_emplace({function, pc.pc_offset, stall}, pending_.pc_samples.size());
      if (made) {
        pending_.pc_samples.push_back({function, pc.pc_offset, stall, 0});
      }
      pending_.pc_samples[at->second].samples += samples;
    }
  }
  for (uint64_t crc : unloaded_) cubins_.erase(crc);
  unloaded_.clear();
}

void PcRecords::MoveTo(model::Profile* batch) {
  const model::StringTable& local = pending_.strings;
  auto id = [&](model::StringId s) { return batch->strings.Intern(local.Get(s)); };
  for (model::SampledFunction f : pending_.sampled_functions) {
    f.name = id(f.name);
    batch->sampled_functions.push_back(f);
  }
  for (model::PcSampleCount c : pending_.pc_samples) {
    c.stall = id(c.stall);
    batch->pc_samples.push_back(c);
  }
  for (model::PcLine l : pending_.pc_lines) {
    l.file = id(l.file);
    batch->pc_lines.push_back(l);
  }
  for (model::SourceText& t : pending_.source_text) {
    t.file = id(t.file);
    batch->source_text.push_back(std::move(t));
  }
  pending_.ClearRecords();
  pending_.strings.Clear();
  count_at_.clear();
}

}  // namespace cuscope::collect
