#pragma once
// A small synchronous HTTP/1.1 client for the command line, the light client,
// the load generator and the bench: one keep-alive connection to one server,
// reopened once when the server had closed it, and a reader of server-sent
// event streams. Not thread-safe: one Client per thread.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sion/base/result.hpp"
#include "sion/http/event.hpp"
#include "sion/http/message.hpp"

namespace sion::http {

struct BaseUrl {
  std::string host;  // a name, an IPv4 address, or an IPv6 address without brackets
  std::uint16_t port = 80;
  std::string prefix;  // a path prefix without trailing '/', often empty

  bool operator==(const BaseUrl&) const = default;
};

// "http://host[:port][/prefix]". Other schemes (https included) are refused
// by name; so are user info, queries and fragments.
base::Result<BaseUrl> parse_base_url(std::string_view url);

struct ClientOptions {
  std::chrono::milliseconds connect_timeout{5'000};
  std::chrono::milliseconds read_timeout{30'000};  // for the whole response after the request is sent
  std::size_t max_body_bytes = 64 * 1024 * 1024;
};

struct ClientResponse {
  unsigned status = 0;
  Fields headers;
  std::string body;

  const std::string* header(std::string_view name) const noexcept;
};

// A subscription to one event stream, on its own connection.
class EventSubscription {
 public:
  ~EventSubscription();
  EventSubscription(EventSubscription&&) noexcept;
  EventSubscription& operator=(EventSubscription&&) noexcept;

  // The next event; nullopt when none arrived within `timeout` (the
  // subscription stays usable). io_error "event stream closed" once the
  // server ended the stream (after a `lagged` event, for one).
  base::Result<std::optional<Event>> next_event(std::chrono::milliseconds timeout);
  // The id of the last event that carried one (for Last-Event-ID on resubscribing).
  const std::string& last_event_id() const noexcept;

  class Impl;
  explicit EventSubscription(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

class Client {
 public:
  static base::Result<Client> create(std::string_view base_url, ClientOptions options = {});
  ~Client();
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;

  // `path` (starting with '/') is appended to the base URL's prefix. A
  // response of any status is a value; io_error for connect and read
  // failures and timeouts; invalid_value for a malformed response.
  base::Result<ClientResponse> get(std::string_view path);
  base::Result<ClientResponse> post(std::string_view path, std::string_view body,
                                    std::string_view content_type = "application/json");
  // Opens an event stream (GET with Accept: text/event-stream). A status
  // other than 200 is an error quoting the server's error body.
  base::Result<EventSubscription> subscribe(std::string_view path,
                                            std::optional<std::string> last_event_id = std::nullopt);

  const BaseUrl& base_url() const noexcept;

  class Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sion::http
