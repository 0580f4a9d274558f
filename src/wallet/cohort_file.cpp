#include "sion/wallet/cohort_file.hpp"

#include <array>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/base/json.hpp"
#include "sion/codec/codec.hpp"

namespace sion::wallet {

using base::Errc;

agents::CohortSpec cohort_spec(const CohortFile& file) {
  agents::CohortSpec spec;
  spec.caveats.assign(file.members, file.caveats);
  spec.allotments.assign(file.members, file.allotment);
  return spec;
}

std::string cohort_file_to_json(const CohortFile& file) {
  base::JsonValue json = base::JsonValue::object();
  json["cohort"] = base::to_hex(file.cohort);
  json["members"] = file.members;
  json["allotment"] = file.allotment;
  json["caveats_hex"] = base::to_hex(codec::encode(file.caveats));
  return json.dump(2) + "\n";
}

namespace {

base::Failure bad(std::string_view field, std::string_view why) {
  return base::fail(Errc::invalid_value, "cohort file: $." + std::string(field) + ": " + std::string(why));
}

base::Result<std::uint64_t> unsigned_field(const base::JsonValue& json, const char* name) {
  const base::JsonValue& value = json.at(name);
  if (!value.is_number_unsigned()) return bad(name, "expected an unsigned integer");
  return value.get<std::uint64_t>();
}

base::Result<base::Bytes> hex_field(const base::JsonValue& json, const char* name) {
  const base::JsonValue& value = json.at(name);
  if (!value.is_string()) return bad(name, "expected hex");
  auto bytes = base::from_hex(value.get<std::string>());
  if (!bytes) return bad(name, bytes.error().reason);
  return std::move(*bytes);
}

}  // namespace

base::Result<CohortFile> parse_cohort_file(std::string_view text) {
  SION_TRY(const base::JsonValue json, base::parse_json(text));
  constexpr std::array<const char*, 4> kFields = {"cohort", "members", "allotment", "caveats_hex"};
  if (!json.is_object()) return base::fail(Errc::invalid_value, "cohort file: $: expected an object");
  for (const char* name : kFields) {
    if (!json.contains(name)) return bad(name, "missing");
  }
  if (json.size() != kFields.size()) return base::fail(Errc::invalid_value, "cohort file: $: unknown fields");
  CohortFile file;
  SION_TRY(const base::Bytes cohort, hex_field(json, "cohort"));
  if (cohort.size() != file.cohort.size()) return bad("cohort", "expected 32 bytes");
  std::copy(cohort.begin(), cohort.end(), file.cohort.begin());
  SION_TRY(const std::uint64_t members, unsigned_field(json, "members"));
  if (members == 0 || members > agents::kMaxCohortMembers) return bad("members", "expected 1 to 2^20");
  file.members = static_cast<std::uint32_t>(members);
  SION_TRY(file.allotment, unsigned_field(json, "allotment"));
  SION_TRY(const base::Bytes caveats, hex_field(json, "caveats_hex"));
  auto decoded = codec::decode<agents::Caveats>(caveats);
  if (!decoded) return bad("caveats_hex", decoded.error().reason);
  file.caveats = std::move(*decoded);
  return file;
}

base::Status write_cohort_file(const std::string& path, const CohortFile& file) {
  return base::write_new_file(path, cohort_file_to_json(file), {.what = "cohort file"});
}

base::Result<CohortFile> read_cohort_file(const std::string& path) {
  SION_TRY(const std::string text, base::read_file(path, {.what = "cohort file", .max_bytes = kMaxCohortFileBytes}));
  auto file = parse_cohort_file(text);
  if (!file) return base::fail(std::move(file).error().with_context(base::quoted_path(path)));
  return file;
}

}  // namespace sion::wallet
