// The room a descheduler freed for one pending gang, held until the gang is placed.
// weft-descheduler writes it on the gang's PodGroup as the annotation below, before it
// evicts; weft-scheduler keeps every pod of another PodGroup (and every pod without
// one) off the reserved nodes while the reservation is live. It lapses at `expires`, or
// as soon as the gang has minMember pods bound, so a gang that vanishes leaks nothing.
//
// Format (JSON in the annotation value):
//   {"domain":"leaf-a1","nodes":["n-001","n-002"],"expires":"2026-11-24T19:10:00Z"}
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "kube/time.h"

namespace weft::kube {

inline constexpr const char* kReservationAnnotation = "weft.dev/reserved-room";

struct Reservation {
  std::string domain;               // the IB fabric or HyperNode the room lies in
  std::vector<std::string> nodes;   // the nodes whose room is held (sorted, unique)
  TimePoint expires;

  bool live(TimePoint now) const { return now < expires; }
};

std::string format_reservation(const Reservation& r);
// `where` prefixes errors: "PodGroup ml/train: annotation weft.dev/reserved-room: expires: ...".
Result<Reservation> parse_reservation(const std::string& text, const std::string& where);

// Which gang holds each reserved node, over the live reservations of gangs still short of
// minMember bound pods. Built per scheduling cycle (or descheduling plan).
class ReservedRooms {
 public:
  // gang: the PodGroup key "ns/name"; satisfied: the gang already has minMember bound.
  void add(const std::string& gang, const Reservation& r, bool satisfied, TimePoint now);
  // The gang holding the node, or nullptr when it is free for everyone.
  const std::string* holder(const std::string& node) const;
  // True when a pod of `gang` ("" for a pod without a PodGroup) must stay off `node`.
  bool blocks(const std::string& node, const std::string& gang) const;
  bool empty() const { return holder_.empty(); }

 private:
  std::unordered_map<std::string, std::string> holder_;   // node -> gang
};

}  // namespace weft::kube
