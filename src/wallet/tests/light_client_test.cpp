#include "sion/wallet/light_client.hpp"

#include <gtest/gtest.h>

#include <string>

#include "fake_node.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/exec/pulse_header.hpp"

namespace sion::wallet {
namespace {

using testing::contains;
using testing::FakeNode;
using testing::hash_of_byte;
using testing::Json;

state::Object coin_object(std::uint8_t fill) {
  state::Object object;
  object.type = 2;
  object.version = 1;
  object.data = base::Bytes(40, fill);
  return object;
}

const exec::Id kPresent = hash_of_byte(0xa1);
const exec::Id kAbsent = hash_of_byte(0xb2);

// A node with three Pulses (data of 3, 2,000 and 5,000 bytes) and a signed head.
void grow(FakeNode& node, std::size_t pulses) {
  for (std::size_t i = 0; i < pulses; ++i) {
    node.add_pulse(3 + 2000 * (node.height() % 3),
                   {{kPresent, coin_object(static_cast<std::uint8_t>(node.height()))},
                    {hash_of_byte(static_cast<std::uint8_t>(node.height())), coin_object(9)}});
  }
  node.sign_head();
}

LightClient make_client(const FakeNode& node) { return LightClient::create(node.genesis()).value(); }

PulseCheckOptions fixed_samples(std::uint32_t samples = 8) {
  PulseCheckOptions options;
  options.samples = samples;
  options.seed = hash_of_byte(0x5e);
  return options;
}

TEST(LightClient, SyncsAndChecksPulses) {
  FakeNode node;
  grow(node, 3);
  NodeApi api(node.call());
  auto client = make_client(node);

  const auto first = client.sync(api);
  ASSERT_TRUE(first) << first.error().to_string();
  EXPECT_FALSE(first->previous);
  EXPECT_FALSE(first->consistency_checked);
  EXPECT_TRUE(first->genesis_checked);
  EXPECT_EQ(first->head, node.log().head());
  EXPECT_EQ(first->head.size, 4u);  // the genesis header and three Pulses
  EXPECT_EQ(client.trusted_head(), node.log().head());
  EXPECT_EQ(client.genesis_hash(), exec::pulse_hash(node.genesis_header()));
  EXPECT_TRUE(contains(describe(*first), "first head trusted"));
  EXPECT_TRUE(contains(describe(*first), "entry 0 is this chain's genesis header"));

  const auto check = client.check_pulse(api, 2, kPresent, fixed_samples());
  ASSERT_TRUE(check) << check.error().to_string();
  EXPECT_EQ(check->pulse_hash, node.pulse(2).hash);
  EXPECT_EQ(check->pulse_hash, exec::pulse_hash(node.pulse(2).header));
  EXPECT_EQ(check->state_root, node.pulse(2).state_root);
  EXPECT_EQ(check->data, node.pulse(2).data);
  EXPECT_EQ(check->data.original_width, 2u);  // 2,003 bytes: 2 x 2 shares of 512
  EXPECT_TRUE(check->availability_header);
  EXPECT_EQ(check->samples, 8u);
  ASSERT_TRUE(check->object);
  EXPECT_EQ(*check->object, coin_object(1));  // as set by Pulse 2 (height 1 when added)
  EXPECT_EQ(check->object_hash, state::object_hash(coin_object(1)));
  EXPECT_TRUE(contains(describe(*check), "8 sampled shares verified"));

  // Below its latest height a node serves no object bytes (docs/api.md):
  // the proof's leaf shows the object present with its value hash.
  node.tamper = [](const std::string& path, Json& body) {
    if (path.rfind("/v1/objects/", 0) == 0) body.erase("object");
  };
  const auto hashed = client.check_pulse(api, 2, kPresent, fixed_samples());
  ASSERT_TRUE(hashed) << hashed.error().to_string();
  EXPECT_FALSE(hashed->object);
  EXPECT_EQ(hashed->object_hash, state::object_hash(coin_object(1)));
  EXPECT_TRUE(contains(describe(*hashed), "its bytes are no longer served")) << describe(*hashed);
  node.tamper = nullptr;

  // Absent objects are proven absent; a width-1 square caps the samples at 4.
  const auto absent = client.check_pulse(api, 1, kAbsent, fixed_samples(50));
  ASSERT_TRUE(absent) << absent.error().to_string();
  EXPECT_FALSE(absent->object);
  EXPECT_EQ(absent->samples, 4u);
  EXPECT_TRUE(contains(describe(*absent), "absent (proven)"));

  // Not yet in the trusted head; and height 0 (the genesis) has no Pulse.
  const auto ahead = client.check_pulse(api, 4, kPresent, fixed_samples());
  ASSERT_FALSE(ahead);
  EXPECT_EQ(ahead.error().code, base::Errc::invalid_argument);
  EXPECT_TRUE(contains(ahead.error().reason, "ask for 1 .. 3")) << ahead.error().reason;
  EXPECT_EQ(client.check_pulse(api, 0, kPresent, fixed_samples()).error().code, base::Errc::invalid_argument);

  // The node grows; the next sync checks consistency and trusts the new head.
  grow(node, 2);
  const auto second = client.sync(api);
  ASSERT_TRUE(second) << second.error().to_string();
  EXPECT_TRUE(second->consistency_checked);
  EXPECT_FALSE(second->genesis_checked);
  EXPECT_EQ(second->previous->size, 4u);
  EXPECT_EQ(client.trusted_head()->size, 6u);
  EXPECT_TRUE(client.check_pulse(api, 5, kPresent, fixed_samples()));

  // A node that lags behind: the trusted head is kept.
  FakeNode lagging;
  grow(lagging, 3);
  NodeApi lagging_api(lagging.call());
  const auto behind = client.sync(lagging_api);
  ASSERT_TRUE(behind) << behind.error().to_string();
  EXPECT_TRUE(behind->behind);
  EXPECT_EQ(client.trusted_head()->size, 6u);
  EXPECT_TRUE(contains(describe(*behind), "behind"));
}

TEST(LightClient, RefusesHeadsNoGenesisValidatorSigned) {
  FakeNode node;
  grow(node, 2);
  NodeApi api(node.call());

  // Signed by a key the genesis does not list.
  const auto stranger = crypto::SigningBundle::from_seed(crypto::Profile::dual, testing::seed_of(9)).value();
  node.sign_head(&stranger);
  auto client = make_client(node);
  auto result = client.sync(api);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, base::Errc::bad_signature);
  EXPECT_TRUE(contains(result.error().reason, "not a genesis validator")) << result.error().reason;

  // The validator's id with a signature over another head.
  node.sign_head();
  node.tamper = [](const std::string& path, Json& body) {
    if (path == "/v1/log/head") {
      commit::TreeHead other{body["size"].get<std::uint64_t>() + 1, hash_of_byte(3)};
      body["size"] = other.size;
      body["root"] = base::to_hex(other.root);
      body["head_hex"] = base::to_hex(codec::encode(other));
    }
  };
  result = client.sync(api);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, base::Errc::bad_signature);
  EXPECT_TRUE(contains(result.error().reason, "does not verify")) << result.error().reason;
  EXPECT_FALSE(client.trusted_head());
}

TEST(LightClient, RefusesAHeadInconsistentWithTheTrustedOne) {
  FakeNode node;
  grow(node, 3);
  NodeApi api(node.call());
  auto client = make_client(node);
  ASSERT_TRUE(client.sync(api));
  const auto trusted = *client.trusted_head();

  // The node rewrites Pulse 2 and signs the new history: validly signed,
  // but not an extension of what the client trusts.
  const commit::Hash genesis = exec::pulse_hash(node.genesis_header());
  node.replace_log({genesis, node.pulse(1).hash, hash_of_byte(0xee), node.pulse(3).hash, hash_of_byte(0xef)});
  node.sign_head();
  const auto result = client.sync(api);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, base::Errc::invalid_value);
  EXPECT_TRUE(contains(result.error().reason, "not consistent")) << result.error().reason;
  EXPECT_EQ(client.trusted_head(), trusted);

  // Same size, another root: two histories.
  node.replace_log({genesis, hash_of_byte(0), hash_of_byte(1), hash_of_byte(2)});
  node.sign_head();
  const auto forked = client.sync(api);
  ASSERT_FALSE(forked);
  EXPECT_TRUE(contains(forked.error().reason, "two histories")) << forked.error().reason;
}

TEST(LightClient, RefusesANodeOfAnotherChain) {
  FakeNode node;
  grow(node, 1);
  NodeApi api(node.call());
  auto genesis = node.genesis();
  genesis.params.chain_id = 6;
  auto client = LightClient::create(genesis).value();
  const auto result = client.sync(api);
  ASSERT_FALSE(result);
  EXPECT_TRUE(contains(result.error().reason, "another chain")) << result.error().reason;

  genesis.validators.clear();
  EXPECT_EQ(LightClient::create(genesis).error().code, base::Errc::invalid_argument);
}

// A node whose status names this chain but whose signed log starts from
// another genesis header: refused when the log is first trusted.
TEST(LightClient, RefusesALogWhoseEntryZeroIsNotTheGenesisHeader) {
  FakeNode node;
  grow(node, 2);
  NodeApi api(node.call());
  auto other = node.genesis_header();
  other.time_ms = 1;
  node.replace_log({exec::pulse_hash(other), node.pulse(1).hash, node.pulse(2).hash});
  node.sign_head();
  auto client = make_client(node);
  auto result = client.sync(api);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, base::Errc::invalid_value);
  EXPECT_TRUE(contains(result.error().reason, "the log of another chain")) << result.error().reason;
  EXPECT_FALSE(client.trusted_head());

  // The right entry 0, with a proof that does not lead to the head.
  node.replace_log({exec::pulse_hash(node.genesis_header()), node.pulse(1).hash, node.pulse(2).hash});
  node.sign_head();
  node.tamper = [](const std::string& path, Json& body) {
    if (path.rfind("/v1/log/inclusion/0", 0) == 0) {
      auto proof = codec::decode<commit::InclusionProof>(base::from_hex(body["proof_hex"].get<std::string>()).value());
      proof.value().path[0] = hash_of_byte(0x44);
      body["proof_hex"] = base::to_hex(codec::encode(proof.value()));
    }
  };
  result = client.sync(api);
  ASSERT_FALSE(result);
  EXPECT_TRUE(contains(result.error().reason, "genesis header as entry 0 does not lead")) << result.error().reason;

  // An empty log lacks the genesis header.
  node.tamper = nullptr;
  node.replace_log({});
  node.sign_head();
  result = client.sync(api);
  ASSERT_FALSE(result);
  EXPECT_TRUE(contains(result.error().reason, "lacks the genesis header")) << result.error().reason;

  node.replace_log({exec::pulse_hash(node.genesis_header()), node.pulse(1).hash, node.pulse(2).hash});
  node.sign_head();
  EXPECT_TRUE(client.sync(api));
}

// A Pulse reply's header_hex and JSON header replaced by `header`'s, and
// its hash too when `with_hash`: a reply consistent in itself.
void serve_header(Json& body, const exec::PulseHeader& header, bool with_hash) {
  body["header_hex"] = base::to_hex(codec::encode(header));
  body["header"] = FakeNode::header_json(header);
  if (with_hash) body["hash"] = base::to_hex(exec::pulse_hash(header));
}

exec::PulseHeader with_state_root(exec::PulseHeader header, const commit::Hash& root) {
  header.state_root = root;
  return header;
}

// Each tampering of a Pulse check's replies, and what the refusal names.
struct Tampering {
  const char* name;
  std::function<void(const FakeNode&, const std::string&, Json&)> edit;
  const char* expected;
};

TEST(LightClient, RefusesTamperedPulseReplies) {
  FakeNode node;
  grow(node, 3);
  const auto share_of = [&](std::uint32_t row, std::uint32_t col) {
    const auto& p = node.pulse(2);
    return base::to_hex(codec::encode(da::prove_share(*p.square, *p.trees, da::Axis::row, row, col)));
  };
  const std::vector<Tampering> cases = {
      {"header bytes with a byte flipped",
       [](const FakeNode&, const std::string& path, Json& body) {
         if (path == "/v1/pulses/2") {
           auto bytes = base::from_hex(body["header_hex"].get<std::string>()).value();
           bytes[8 + 32] ^= 1;  // time_ms, after height and parent
           body["header_hex"] = base::to_hex(bytes);
         }
       },
       "JSON field \"time_ms\" disagrees with header_hex"},
      {"header bytes with a trailing byte",
       [](const FakeNode&, const std::string& path, Json& body) {
         if (path == "/v1/pulses/2") body["header_hex"] = body["header_hex"].get<std::string>() + "00";
       },
       "$.header_hex: not one canonical PulseHeader encoding"},
      {"JSON fields that disagree with the bytes",
       [](const FakeNode& n, const std::string& path, Json& body) {
         if (path == "/v1/pulses/2") body["header"]["state_root"] = base::to_hex(n.pulse(3).state_root);
       },
       "JSON field \"state_root\" disagrees with header_hex"},
      {"a header (bytes and fields agreeing) that does not hash to the hash",
       [](const FakeNode& n, const std::string& path, Json& body) {
         if (path == "/v1/pulses/2")
           serve_header(body, with_state_root(n.pulse(2).header, n.pulse(3).state_root), false);
       },
       "header_hex hashes to"},
      {"a header, its hash and fields the log does not hold",
       [](const FakeNode& n, const std::string& path, Json& body) {
         if (path == "/v1/pulses/2")
           serve_header(body, with_state_root(n.pulse(2).header, n.pulse(3).state_root), true);
       },
       "the log's entry 2 is"},
      {"another Pulse's header, consistent in itself",
       [](const FakeNode& n, const std::string& path, Json& body) {
         if (path == "/v1/pulses/2") serve_header(body, n.pulse(3).header, true);
       },
       "the header is of height 3"},
      {"a log entry that is not the header's hash",
       [](const FakeNode& n, const std::string& path, Json& body) {
         if (path.rfind("/v1/log/inclusion/2", 0) == 0) body["pulse_hash"] = base::to_hex(n.pulse(3).hash);
       },
       "the log's entry 2 is"},
      {"an inclusion proof of another entry's path",
       [](const FakeNode& n, const std::string& path, Json& body) {
         if (path.rfind("/v1/log/inclusion/2", 0) == 0) {
           auto proof = n.log().inclusion_proof(2, 4).value();
           proof.path[0] = hash_of_byte(0x44);
           body["proof_hex"] = base::to_hex(codec::encode(proof));
         }
       },
       "does not lead to the trusted log head"},
      {"a share for another coordinate",
       [&](const FakeNode&, const std::string& path, Json& body) {
         if (path.rfind("/v1/pulses/2/shares/", 0) == 0) {
           const auto row = body["row"].get<std::uint32_t>();
           const auto col = body["column"].get<std::uint32_t>();
           body["proof_hex"] = share_of(row, (col + 1) % (2 * node.pulse(2).data.original_width));
         }
       },
       "asked for share"},
      {"a share whose bytes were changed",
       [&](const FakeNode&, const std::string& path, Json& body) {
         if (path.rfind("/v1/pulses/2/shares/", 0) == 0) {
           auto bytes = base::from_hex(body["proof_hex"].get<std::string>()).value();
           bytes[10] ^= 1;  // axis (1), line (2), position (2), then the share
           body["proof_hex"] = base::to_hex(bytes);
         }
       },
       "share"},
      {"row roots that do not hash to the data root",
       [](const FakeNode& n, const std::string& path, Json& body) {
         if (path == "/v1/pulses/2/availability") {
           auto header = n.pulse(2).trees->header();
           header.row_roots[0] = hash_of_byte(1);
           body["availability_hex"] = base::to_hex(codec::encode(header));
         }
       },
       "row and column roots hash to"},
      {"an object whose value the proof does not show",
       [](const FakeNode&, const std::string& path, Json& body) {
         if (path.rfind("/v1/objects/", 0) == 0) body["object"]["version"] = 2;
       },
       "state proof does not show"},
      {"an object served as absent",
       [](const FakeNode&, const std::string& path, Json& body) {
         if (path.rfind("/v1/objects/", 0) == 0) body["object"] = nullptr;
       },
       "absent under the state root"},
      {"a proof against another state root",
       [](const FakeNode& n, const std::string& path, Json& body) {
         if (path.rfind("/v1/objects/", 0) == 0) body["state_root"] = base::to_hex(n.pulse(3).state_root);
       },
       "not the header's"},
      {"a hex field of the wrong size",
       [](const FakeNode&, const std::string& path, Json& body) {
         if (path.rfind("/v1/log/inclusion/2", 0) == 0) body["pulse_hash"] = std::string(62, 'a');
       },
       "$.pulse_hash: expected 64 hex digits, got 62"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    node.tamper = [&](const std::string& path, Json& body) { c.edit(node, path, body); };
    NodeApi api(node.call());
    auto client = make_client(node);
    ASSERT_TRUE(client.sync(api));
    const auto result = client.check_pulse(api, 2, kPresent, fixed_samples(64));
    ASSERT_FALSE(result);
    EXPECT_TRUE(contains(result.error().reason, c.expected)) << result.error().reason;
  }
  node.tamper = nullptr;
  NodeApi api(node.call());
  auto client = make_client(node);
  EXPECT_EQ(client.check_pulse(api, 1, kPresent).error().code, base::Errc::invalid_argument);  // no sync yet
  ASSERT_TRUE(client.sync(api));
  EXPECT_TRUE(client.check_pulse(api, 2, kPresent, fixed_samples(64)));
}

TEST(LightClient, LeafIsTheRfc6962LeafOfThePulseHash) {
  const commit::Hash pulse_hash = hash_of_byte(0x42);
  base::Bytes input{0x00};
  input.insert(input.end(), pulse_hash.begin(), pulse_hash.end());
  EXPECT_EQ(header_log_leaf_hash(pulse_hash), crypto::sha3_256(input));
}

}  // namespace
}  // namespace sion::wallet
