#pragma once
// The completion of an asynchronous handler: move-only, callable once, from
// any thread, at any later time. A Reply destroyed without being called
// answers 500, so a forgotten request never holds its connection.

#include <memory>

#include "sion/http/message.hpp"

namespace sion::http {

namespace detail {
class ReplyTarget {
 public:
  virtual ~ReplyTarget() = default;
  // True for the first call, which sends; `dropped`: the Reply was destroyed uncalled.
  virtual bool deliver(Response response, bool dropped) = 0;
};
}  // namespace detail

class Reply {
 public:
  explicit Reply(std::shared_ptr<detail::ReplyTarget> target) : target_(std::move(target)) {}
  Reply(Reply&&) noexcept = default;
  Reply& operator=(Reply&& other) noexcept;
  Reply(const Reply&) = delete;
  Reply& operator=(const Reply&) = delete;
  ~Reply();

  // Sends the response; later calls (and calls on a moved-from Reply) do nothing.
  void operator()(Response response);
  // Not yet called.
  bool pending() const noexcept { return target_ != nullptr; }

 private:
  void drop() noexcept;
  std::shared_ptr<detail::ReplyTarget> target_;
};

}  // namespace sion::http
