#include "sion/wallet/http_transport.hpp"

#include <chrono>
#include <utility>

#include "sion/http/client.hpp"
#include "sion/wallet/api_replies.hpp"

namespace sion::wallet {
namespace {

std::string content_type_of(const http::ClientResponse& response) {
  const std::string* type = response.header("Content-Type");
  return type == nullptr ? std::string() : *type;
}

}  // namespace

base::Result<HttpCall> http_call_for(const std::string& url) {
  SION_TRY(http::Client client, http::Client::create(url));
  auto shared = std::make_shared<http::Client>(std::move(client));
  return HttpCall([shared](std::string_view method, std::string_view path, std::string_view body,
                           std::string_view content_type) -> base::Result<HttpReply> {
    base::Result<http::ClientResponse> response =
        method == "POST" ? shared->post(path, body, content_type) : shared->get(path);
    if (!response) return base::fail(std::move(response).error());
    return HttpReply{response->status, content_type_of(*response), std::move(response->body)};
  });
}

base::Result<std::unique_ptr<EventFollower>> EventFollower::start(const std::string& url, ObservedQueue& queue,
                                                                  LoadClock& clock) {
  SION_TRY(http::Client client, http::Client::create(url));
  SION_TRY(http::EventSubscription subscription, client.subscribe("/v1/events"));
  auto follower = std::unique_ptr<EventFollower>(new EventFollower());
  follower->thread_ = std::thread([&queue, &clock, raw = follower.get(), client = std::move(client),
                                   subscription = std::move(subscription)]() mutable {
    while (!raw->stop_) {
      auto event = subscription.next_event(std::chrono::milliseconds(200));
      if (!event) return;  // the stream ended; the run's drain times out what is left
      if (!*event) continue;
      if ((*event)->type == "certificate") {
        if (const auto height = parse_certificate_event((*event)->data)) queue.certify(height.value(), clock.now_us());
        continue;
      }
      if ((*event)->type != "transaction") continue;
      auto data = parse_tx_event_reply((*event)->data);
      if (!data) continue;
      queue.push({data->tx_id, clock.now_us(), std::move(data->state.status), data->state.height.value_or(0)});
    }
  });
  return follower;
}

EventFollower::~EventFollower() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

}  // namespace sion::wallet
