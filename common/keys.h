// The label and annotation keys of docs/contracts.md, for every part that writes or
// reads them (agent, scheduler, descheduler, demo).
#pragma once

namespace weft::keys {

// The agent owns every key under this prefix on its own Node, and no other.
inline constexpr const char* kOwnedPrefix = "weft.dev/";

// Node labels written by the agent.
inline constexpr const char* kRdma = "weft.dev/rdma";                 // ib | roce | none
inline constexpr const char* kFabric = "weft.dev/ib-fabric";          // IB subnet id
inline constexpr const char* kLeaf = "weft.dev/ib-leaf";              // tier-1 domain
inline constexpr const char* kSpine = "weft.dev/ib-spine";            // tier-2 domain
inline constexpr const char* kRateGbps = "weft.dev/ib-rate-gbps";
inline constexpr const char* kRails = "weft.dev/ib-rails";                // IB compute ports
inline constexpr const char* kRailsActive = "weft.dev/ib-rails-active";   // ... of them ACTIVE
inline constexpr const char* kNvlinkDomain = "weft.dev/nvlink-domain";    // from nvidia.com/gpu.clique
inline constexpr const char* kGpuClique = "nvidia.com/gpu.clique";        // GPU feature discovery's label

// Node annotations written by the agent.
inline constexpr const char* kPortsAnnotation = "weft.dev/ib-ports";
inline constexpr const char* kLoadAnnotation = "weft.dev/load";

// On PodGroups (and any scenario object).
inline constexpr const char* kIbClusterAnnotation = "weft.dev/ib-cluster";   // "same"
inline constexpr const char* kArrivalAnnotation = "weft.dev/arrival-cycle";
// Kubernetes/Volcano: the PodGroup a pod belongs to.
inline constexpr const char* kGroupAnnotation = "scheduling.k8s.io/group-name";

}  // namespace weft::keys
