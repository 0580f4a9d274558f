#pragma once
// Known answers as docs/*.md writes them, for the tests that check the docs'
// values against the code (header only). Inside a fenced code block, a line
//
//   label: 0123 4567          // comment
//
// starts a value (the label at the start of the line; spaces inside the hex
// are for reading only), and the indented lines of hex after it continue
// it. `//` starts a comment. Other lines are prose or code and are skipped.

#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/bytes.hpp"

namespace sion::base::testing {

class DocValues {
 public:
  // Reads every value of the file; a file that cannot be read, a label
  // given twice or hex that does not decode is listed in problems().
  explicit DocValues(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
      problems_.push_back("cannot read " + path);
      return;
    }
    std::string line;
    std::string* current = nullptr;  // the hex of the value being continued
    bool fenced = false;
    std::size_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.starts_with("```")) {
        fenced = !fenced;
        current = nullptr;
        continue;
      }
      if (!fenced) continue;
      const std::string_view text = std::string_view(line).substr(0, line.find("//"));
      const std::size_t colon = text.find(": ");
      if (!text.empty() && std::islower(static_cast<unsigned char>(text[0])) && colon != std::string_view::npos &&
          is_hex(text.substr(colon + 2))) {
        const std::string label(text.substr(0, colon));
        if (hex_.contains(label)) problems_.push_back("line " + std::to_string(number) + ": " + label + " again");
        current = &hex_[label];
        *current = strip(text.substr(colon + 2));
      } else if (current != nullptr && !text.empty() && text[0] == ' ' && is_hex(text)) {
        *current += strip(text);
      } else {
        current = nullptr;
      }
    }
  }

  const std::vector<std::string>& problems() const noexcept { return problems_; }
  std::vector<std::string> labels() const {
    std::vector<std::string> out;
    for (const auto& [label, hex] : hex_) out.push_back(label);
    return out;
  }

  // The value's bytes; nullopt if the label is absent or its hex is bad.
  std::optional<Bytes> bytes(const std::string& label) const {
    const auto it = hex_.find(label);
    if (it == hex_.end()) return std::nullopt;
    auto decoded = from_hex(it->second);
    if (!decoded) return std::nullopt;
    return std::move(*decoded);
  }
  // The value as lower-case hex without spaces ("" if absent).
  std::string hex(const std::string& label) const {
    const auto it = hex_.find(label);
    return it == hex_.end() ? std::string{} : it->second;
  }

 private:
  // Hex digits and spaces, at least one digit.
  static bool is_hex(std::string_view text) {
    bool digit = false;
    for (const char c : text) {
      if (c == ' ') continue;
      if (!std::isxdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c))) return false;
      digit = true;
    }
    return digit;
  }
  static std::string strip(std::string_view text) {
    std::string out;
    for (const char c : text) {
      if (c != ' ') out += c;
    }
    return out;
  }

  std::map<std::string, std::string> hex_;
  std::vector<std::string> problems_;
};

}  // namespace sion::base::testing
