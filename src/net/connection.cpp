#include "connection.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "sion/base/random.hpp"
#include "sion/crypto/signature.hpp"
#include "sion/net/identity.hpp"

namespace sion::net::detail {
namespace {

using boost::system::error_code;

// A write takes at most this many frames or bytes from the queue at once
// (one gathered send), so a long queue does not become one huge write.
constexpr std::size_t kBatchFrames = 64;
constexpr std::uint64_t kBatchBytes = 1024 * 1024;

}  // namespace

Connection::Connection(Core& core, std::uint64_t id, tcp::socket socket, Role role, std::uint32_t dialed)
    : core_(core),
      id_(id),
      socket_(std::move(socket)),
      role_(role),
      handshake_timer_(socket_.get_executor()),
      write_timer_(socket_.get_executor()),
      delay_timer_(socket_.get_executor()),
      peer_(dialed),
      peer_known_(role == Role::initiator) {}

std::string Connection::describe() const {
  std::string text = role_ == Role::initiator ? "link to" : "link from";
  text += peer_known_ ? " validator " + std::to_string(peer_) : " unidentified peer";
  if (!remote_.empty()) text += " (" + remote_ + ")";
  return text;
}

void Connection::arm_handshake_timer() {
  handshake_timer_.expires_after(core_.options.handshake_timeout);
  handshake_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    if (ec || self->phase_ == Phase::up || self->phase_ == Phase::closed) return;
    if (self->phase_ == Phase::connecting) return self->dial_failed("connect timed out");
    self->fail_handshake(HandshakeFailure::timeout, "handshake not finished in time");
  });
}

void Connection::dial(const std::string& host, std::uint16_t port) {
  arm_handshake_timer();  // from the dial: it bounds the connect too
  remote_ = host + ":" + std::to_string(port);
  resolver_.emplace(socket_.get_executor());
  resolver_->async_resolve(
      host, std::to_string(port), tcp::resolver::numeric_service,
      [self = shared_from_this()](const error_code& ec, const tcp::resolver::results_type& results) {
        if (self->phase_ == Phase::closed) return;
        if (ec) return self->dial_failed("cannot resolve: " + ec.message());
        asio::async_connect(self->socket_, results, [self](const error_code& connect_ec, const tcp::endpoint&) {
          if (self->phase_ == Phase::closed) return;
          if (connect_ec) return self->dial_failed("cannot connect: " + connect_ec.message());
          self->on_connected();
        });
      });
}

void Connection::accepted() {
  arm_handshake_timer();
  on_connected();
}

void Connection::on_connected() {
  error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  socket_.set_option(asio::socket_base::keep_alive(true), ignored);
  if (const tcp::endpoint remote = socket_.remote_endpoint(ignored); !ignored) {
    remote_ = remote.address().to_string() + ":" + std::to_string(remote.port());
  }
  auto nonce = base::random_array<32>();
  if (!nonce) return fail_handshake(HandshakeFailure::local_error, "no nonce: " + nonce.error().reason);
  Hello hello;
  hello.chain_id = core_.options.chain_id;
  hello.sender = core_.options.self;
  hello.nonce = *nonce;
  own_hello_ = encode_hello(hello);
  phase_ = Phase::hello;
  queue_control(own_hello_);
  read();
}

void Connection::dial_failed(const std::string& reason) {
  Counters::add(core_.counters.dial_failures);
  core_.log("dial of validator " + std::to_string(peer_) + " at " + remote_ + " failed: " + reason);
  close(reason);
}

void Connection::fail_handshake(HandshakeFailure kind, const std::string& reason) {
  if (phase_ == Phase::closed) return;
  core_.count_handshake_failure(kind);
  core_.log(describe() + " refused (" + std::string(handshake_failure_name(kind)) + "): " + reason);
  close(reason);
}

void Connection::close(std::string_view reason) {
  if (phase_ == Phase::closed) return;
  const bool was_up = phase_ == Phase::up;
  phase_ = Phase::closed;
  error_code ignored;
  if (resolver_) resolver_->cancel();
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  handshake_timer_.cancel();
  write_timer_.cancel();
  delay_timer_.cancel();
  control_.clear();
  if (was_up) core_.log(describe() + " closed: " + std::string(reason));
  core_.on_closed(shared_from_this());
}

void Connection::read() {
  socket_.async_read_some(asio::buffer(read_buffer_),
                          [self = shared_from_this()](const error_code& ec, std::size_t n) { self->on_read(ec, n); });
}

void Connection::on_read(const error_code& ec, std::size_t n) {
  if (phase_ == Phase::closed) return;
  if (ec) {
    const std::string why = ec == asio::error::eof ? "the peer closed the connection" : "read failed: " + ec.message();
    if (phase_ != Phase::up) return fail_handshake(HandshakeFailure::connection_lost, why);
    return close(why);
  }
  base::ByteView data(read_buffer_.data(), n);
  while (!data.empty() && phase_ != Phase::closed) {
    auto used = reader_.feed(data);
    if (!used) {
      const bool oversized = used.error().code == base::Errc::length_over_max;
      Counters::add(oversized ? core_.counters.oversized : core_.counters.malformed);
      if (phase_ != Phase::up) {
        return fail_handshake(oversized ? HandshakeFailure::oversized_frame : HandshakeFailure::malformed,
                              used.error().reason);
      }
      core_.log(describe() + ": " + used.error().reason);
      return close(used.error().reason);
    }
    data = data.subspan(*used);
    if (reader_.ready()) on_frame(reader_.take());
  }
  if (phase_ != Phase::closed) read();
}

void Connection::on_frame(base::Bytes frame) {
  switch (phase_) {
    case Phase::hello: return on_hello(std::move(frame));
    case Phase::auth: return on_auth(frame);
    case Phase::up: return core_.deliver(peer_, std::move(frame));
    case Phase::connecting:
    case Phase::closed: return;
  }
}

void Connection::on_hello(base::Bytes frame) {
  auto hello = decode_hello(frame);
  if (!hello) return fail_handshake(HandshakeFailure::malformed, hello.error().reason);
  HelloRules rules;
  rules.chain_id = core_.options.chain_id;
  rules.self = core_.options.self;
  rules.validators = static_cast<std::uint32_t>(core_.validators());
  rules.own_role = role_;
  rules.dialed = peer_;
  if (auto refusal = check_hello(*hello, rules)) return fail_handshake(refusal->kind, refusal->reason);
  peer_ = hello->sender;
  peer_known_ = true;
  peer_hello_ = std::move(frame);

  const base::Result<base::Bytes> signature = call_signer(core_.options.signer, transcript(role_));
  if (!signature) return fail_handshake(HandshakeFailure::local_error, "cannot sign: " + signature.error().reason);
  if (signature->size() != kAuthSignatureBytes) {
    return fail_handshake(HandshakeFailure::local_error, "the signer gave " + std::to_string(signature->size()) +
                                                             " bytes, not an ML-DSA-44 signature");
  }
  Auth auth;
  std::copy(signature->begin(), signature->end(), auth.signature.begin());
  phase_ = Phase::auth;
  queue_control(encode_auth(auth));
}

crypto::Hash256 Connection::transcript(Role signer) const {
  const bool initiator = role_ == Role::initiator;
  return transcript_hash(core_.options.chain_id, initiator ? own_hello_ : peer_hello_,
                         initiator ? peer_hello_ : own_hello_, signer);
}

void Connection::on_auth(const base::Bytes& frame) {
  auto auth = decode_auth(frame);
  if (!auth) return fail_handshake(HandshakeFailure::malformed, auth.error().reason);
  const Role peer_role = role_ == Role::initiator ? Role::responder : Role::initiator;
  if (!crypto::verify(crypto::Scheme::ml_dsa_44, core_.slot(peer_).key, transcript(peer_role), auth->signature)) {
    return fail_handshake(HandshakeFailure::bad_signature, "the Auth signature does not verify under validator " +
                                                               std::to_string(peer_) + "'s ML-DSA-44 key");
  }
  phase_ = Phase::up;
  was_up_ = true;
  up_since_ = Clock::now();
  handshake_timer_.cancel();
  reader_.set_max_frame_bytes(core_.options.max_frame_bytes);
  core_.on_up(shared_from_this());
  pump();
}

void Connection::queue_control(base::Bytes payload) {
  control_.push_back(std::make_shared<const base::Bytes>(std::move(payload)));
  pump();
}

void Connection::pump() {
  if (phase_ == Phase::closed || writing_) return;
  batch_.clear();
  batch_bytes_ = 0;
  batch_is_payload_ = false;
  if (!control_.empty()) {
    while (!control_.empty()) {
      batch_.push_back(std::move(control_.front()));
      control_.pop_front();
    }
    return start_write();
  }
  if (phase_ != Phase::up || delay_armed_) return;
  PeerSlot& slot = core_.slot(peer_);
  Clock::time_point wait_until{};
  {
    std::lock_guard lock(slot.mutex);
    Clock::time_point now{};
    while (!slot.queue.empty() && batch_.size() < kBatchFrames && batch_bytes_ < kBatchBytes) {
      QueuedFrame& front = slot.queue.front();
      if (front.ready_at != Clock::time_point{}) {
        // Only delayed frames read the clock, so the hook costs nothing unused.
        if (now == Clock::time_point{}) now = Clock::now();
        if (front.ready_at > now) {
          wait_until = front.ready_at;
          break;
        }
      }
      batch_bytes_ += front.payload->size();
      slot.queued_bytes -= front.payload->size();
      batch_.push_back(std::move(front.payload));
      slot.queue.pop_front();
    }
  }
  if (batch_.empty()) {
    if (wait_until != Clock::time_point{}) arm_delay(wait_until);
    return;
  }
  batch_is_payload_ = true;
  start_write();
}

void Connection::arm_delay(Clock::time_point until) {
  delay_armed_ = true;
  delay_timer_.expires_at(until);
  delay_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    self->delay_armed_ = false;
    if (ec || self->phase_ == Phase::closed) return;
    self->pump();
  });
}

void Connection::start_write() {
  headers_.resize(batch_.size());
  buffers_.clear();
  buffers_.reserve(2 * batch_.size());
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    headers_[i] = frame_header(static_cast<std::uint32_t>(batch_[i]->size()));
    buffers_.emplace_back(headers_[i].data(), headers_[i].size());
    buffers_.emplace_back(batch_[i]->data(), batch_[i]->size());
  }
  writing_ = true;
  if (batch_is_payload_) {
    // The handshake timer bounds handshake writes; this bounds the rest, so
    // a peer that stops reading loses its link instead of stalling it.
    write_timer_.expires_after(core_.options.write_timeout);
    write_timer_.async_wait([self = shared_from_this(), generation = ++write_generation_](const error_code& ec) {
      if (ec || generation != self->write_generation_ || !self->writing_ || self->phase_ == Phase::closed) return;
      Counters::add(self->core_.counters.write_timeouts);
      self->core_.log(self->describe() + ": a write did not finish in time");
      self->close("write timed out");
    });
  }
  asio::async_write(socket_, buffers_,
                    [self = shared_from_this()](const error_code& ec, std::size_t) { self->on_written(ec); });
}

void Connection::on_written(const error_code& ec) {
  writing_ = false;
  if (phase_ == Phase::closed) return;
  if (batch_is_payload_) {
    ++write_generation_;
    write_timer_.cancel();
  }
  if (ec) {
    if (phase_ != Phase::up) return fail_handshake(HandshakeFailure::connection_lost, "write failed: " + ec.message());
    return close("write failed: " + ec.message());
  }
  if (batch_is_payload_) {
    Counters::add(core_.counters.frames_sent, batch_.size());
    Counters::add(core_.counters.bytes_sent, batch_bytes_);
  }
  batch_.clear();
  pump();
}

}  // namespace sion::net::detail
