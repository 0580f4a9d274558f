#include "sion/http/client.hpp"

#include <array>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "sion/http/sse_reader.hpp"

namespace sion::http {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// Runs the operations `initiate` starts on `ioc` to completion on this
// thread; the first completion's error is returned.
template <class Initiate>
error_code run(asio::io_context& ioc, Initiate&& initiate) {
  error_code result = asio::error::would_block;
  bool done = false;
  initiate([&](error_code ec, auto&&...) {
    if (!done) result = ec;
    done = true;
  });
  ioc.restart();
  ioc.run();
  return result;
}

std::string where(const BaseUrl& url) { return url.host + ":" + std::to_string(url.port); }

bool is_timeout(error_code ec) { return ec == beast::error::timeout; }

base::Failure read_failure(const BaseUrl& url, error_code ec, std::chrono::milliseconds timeout) {
  if (is_timeout(ec)) {
    return base::fail(base::Errc::io_error,
                      "no complete response from " + where(url) + " within " + std::to_string(timeout.count()) + " ms");
  }
  if (ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
      ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
    return base::fail(base::Errc::invalid_value, "malformed response from " + where(url) + ": " + ec.message());
  }
  return base::fail(base::Errc::io_error, "reading the response from " + where(url) + ": " + ec.message());
}

Fields fields_of(const bhttp::fields& fields) {
  Fields out;
  for (const auto& field : fields) out.emplace_back(std::string(field.name_string()), std::string(field.value()));
  return out;
}

// Connects a tcp_stream to the URL's host within the connect timeout.
base::Status connect_stream(asio::io_context& ioc, beast::tcp_stream& stream, const BaseUrl& url,
                            const ClientOptions& options) {
  tcp::resolver resolver(ioc);
  error_code ec;
  const auto endpoints = resolver.resolve(url.host, std::to_string(url.port), ec);
  if (ec) return base::fail(base::Errc::io_error, "cannot resolve " + url.host + ": " + ec.message());
  stream.expires_after(options.connect_timeout);
  ec = run(ioc, [&](auto handler) { stream.async_connect(endpoints, std::move(handler)); });
  if (ec) {
    return base::fail(base::Errc::io_error, "cannot connect to " + where(url) + ": " +
                                                (is_timeout(ec) ? std::string("timed out") : ec.message()));
  }
  error_code ignored;
  stream.socket().set_option(tcp::no_delay(true), ignored);
  return {};
}

}  // namespace

class EventSubscription::Impl {
 public:
  Impl(std::unique_ptr<asio::io_context> ioc, tcp::socket socket, std::string leftover)
      : ioc_(std::move(ioc)), socket_(std::move(socket)), timer_(*ioc_) {
    parser_.feed(leftover);
  }

  base::Result<std::optional<Event>> next_event(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (auto event = parser_.next()) return std::optional<Event>(std::move(*event));
      if (closed_) return base::fail(base::Errc::io_error, "event stream closed");
      if (std::chrono::steady_clock::now() >= deadline) return std::optional<Event>();
      // Read with a timer that cancels the read (not the socket), so a timeout leaves the stream usable.
      error_code read_ec = asio::error::would_block;
      std::size_t read_n = 0;
      bool timed_out = false;
      timer_.expires_at(deadline);
      timer_.async_wait([&](error_code ec) {
        if (!ec) {
          timed_out = true;
          error_code ignored;
          socket_.cancel(ignored);
        }
      });
      socket_.async_read_some(asio::buffer(chunk_), [&](error_code ec, std::size_t n) {
        read_ec = ec;
        read_n = n;
        timer_.cancel();
      });
      ioc_->restart();
      ioc_->run();
      parser_.feed(std::string_view(chunk_.data(), read_n));
      if (read_ec && !(timed_out && read_ec == asio::error::operation_aborted)) closed_ = true;
    }
  }

  const std::string& last_event_id() const noexcept { return parser_.last_event_id(); }

 private:
  std::unique_ptr<asio::io_context> ioc_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  std::array<char, 16 * 1024> chunk_{};
  SseParser parser_;
  bool closed_ = false;
};

EventSubscription::EventSubscription(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EventSubscription::~EventSubscription() = default;
EventSubscription::EventSubscription(EventSubscription&&) noexcept = default;
EventSubscription& EventSubscription::operator=(EventSubscription&&) noexcept = default;

base::Result<std::optional<Event>> EventSubscription::next_event(std::chrono::milliseconds timeout) {
  return impl_->next_event(timeout);
}

const std::string& EventSubscription::last_event_id() const noexcept { return impl_->last_event_id(); }

class Client::Impl {
 public:
  Impl(BaseUrl url, ClientOptions options) : url_(std::move(url)), options_(options) {}

  const BaseUrl& url() const noexcept { return url_; }

  base::Result<ClientResponse> request(bhttp::verb verb, std::string_view path, std::string_view body,
                                       std::string_view content_type) {
    SION_TRY(const std::string target, target_of(path));
    for (int attempt = 0; attempt < 2; ++attempt) {
      const bool reused = stream_.has_value();
      if (!stream_) {
        stream_.emplace(ioc_);
        if (auto connected = connect_stream(ioc_, *stream_, url_, options_); !connected) {
          reset();
          return base::fail(std::move(connected).error());
        }
      }
      bhttp::request<bhttp::string_body> message{verb, target, 11};
      message.set(bhttp::field::host, host_field());
      message.set(bhttp::field::user_agent, "sion");
      if (verb == bhttp::verb::post) {
        message.set(bhttp::field::content_type, content_type);
        message.body() = std::string(body);
      }
      message.keep_alive(true);
      message.prepare_payload();
      stream_->expires_after(options_.read_timeout);
      error_code ec = run(ioc_, [&](auto handler) { bhttp::async_write(*stream_, message, std::move(handler)); });
      if (ec) {
        reset();
        if (reused && attempt == 0) continue;  // the server had closed the kept-alive connection
        return base::fail(base::Errc::io_error, "sending the request to " + where(url_) + ": " + ec.message());
      }
      bhttp::response_parser<bhttp::string_body> parser;
      parser.body_limit(options_.max_body_bytes);
      parser.header_limit(64 * 1024);
      ec = run(ioc_, [&](auto handler) { bhttp::async_read(*stream_, buffer_, parser, std::move(handler)); });
      if (ec) {
        const bool nothing = !parser.got_some();
        reset();
        if (reused && attempt == 0 && nothing && !is_timeout(ec)) continue;
        return read_failure(url_, ec, options_.read_timeout);
      }
      auto response = parser.release();
      ClientResponse out;
      out.status = response.result_int();
      out.headers = fields_of(response.base());
      out.body = std::move(response.body());
      if (!response.keep_alive()) reset();
      return out;
    }
    return base::fail(base::Errc::io_error, "no response from " + where(url_));
  }

  base::Result<EventSubscription> subscribe(std::string_view path, const std::optional<std::string>& last_event_id) {
    SION_TRY(const std::string target, target_of(path));
    auto ioc = std::make_unique<asio::io_context>();
    beast::tcp_stream stream(*ioc);
    SION_TRY_STATUS(connect_stream(*ioc, stream, url_, options_));
    bhttp::request<bhttp::empty_body> message{bhttp::verb::get, target, 11};
    message.set(bhttp::field::host, host_field());
    message.set(bhttp::field::user_agent, "sion");
    message.set(bhttp::field::accept, "text/event-stream");
    message.set(bhttp::field::cache_control, "no-cache");
    if (last_event_id) message.set("Last-Event-ID", *last_event_id);
    stream.expires_after(options_.read_timeout);
    error_code ec = run(*ioc, [&](auto handler) { bhttp::async_write(stream, message, std::move(handler)); });
    if (ec) return base::fail(base::Errc::io_error, "sending the request to " + where(url_) + ": " + ec.message());
    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(options_.max_body_bytes);
    ec = run(*ioc, [&](auto handler) { bhttp::async_read_header(stream, buffer, parser, std::move(handler)); });
    if (ec) return read_failure(url_, ec, options_.read_timeout);
    const unsigned status = parser.get().result_int();
    if (status != 200) {
      ec = run(*ioc, [&](auto handler) { bhttp::async_read(stream, buffer, parser, std::move(handler)); });
      const std::string body = ec ? std::string() : parser.get().body();
      return base::fail(status == 404 ? base::Errc::not_found : base::Errc::invalid_argument,
                        "event stream " + std::string(path) + " refused with status " + std::to_string(status) +
                            (body.empty() ? "" : ": " + body));
    }
    const auto type = parser.get()[bhttp::field::content_type];
    if (type.substr(0, 17) != "text/event-stream") {
      return base::fail(base::Errc::invalid_value, "not an event stream: Content-Type " + std::string(type));
    }
    const auto data = buffer.data();
    std::string leftover(static_cast<const char*>(data.data()), data.size());
    stream.expires_never();
    tcp::socket socket = stream.release_socket();
    return EventSubscription(std::make_unique<EventSubscription::Impl>(std::move(ioc), std::move(socket), leftover));
  }

 private:
  base::Result<std::string> target_of(std::string_view path) const {
    if (path.empty() || path.front() != '/') {
      return base::fail(base::Errc::invalid_argument, "a request path starts with '/': \"" + std::string(path) + "\"");
    }
    return url_.prefix + std::string(path);
  }

  std::string host_field() const {
    const bool v6 = url_.host.find(':') != std::string::npos;
    return (v6 ? "[" + url_.host + "]" : url_.host) + ":" + std::to_string(url_.port);
  }

  void reset() {
    if (stream_) {
      error_code ignored;
      stream_->socket().shutdown(tcp::socket::shutdown_both, ignored);
      stream_->close();
    }
    stream_.reset();
    buffer_.clear();
  }

  BaseUrl url_;
  ClientOptions options_;
  asio::io_context ioc_;
  std::optional<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

base::Result<Client> Client::create(std::string_view base_url, ClientOptions options) {
  SION_TRY(BaseUrl url, parse_base_url(base_url));
  return Client(std::make_unique<Impl>(std::move(url), options));
}

base::Result<ClientResponse> Client::get(std::string_view path) {
  return impl_->request(bhttp::verb::get, path, {}, {});
}

base::Result<ClientResponse> Client::post(std::string_view path, std::string_view body, std::string_view content_type) {
  return impl_->request(bhttp::verb::post, path, body, content_type);
}

base::Result<EventSubscription> Client::subscribe(std::string_view path, std::optional<std::string> last_event_id) {
  return impl_->subscribe(path, last_event_id);
}

const BaseUrl& Client::base_url() const noexcept { return impl_->url(); }

}  // namespace sion::http
