//===- batonctl.cpp - The processes sharing a GPU, live -------------------===//
//
// Reads a registry of baton/share.h without joining it and shows who shares
// the GPU: pid, name, class, whether the process still lives, its
// latency-critical work, and how often its best-effort work paused for
// others'. Once, or every --interval seconds like top (--watch).
//
//===----------------------------------------------------------------------===//

#include "baton/share.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

const char *className(baton_share_class C) {
  return C == BATON_SHARE_LATENCY_CRITICAL ? "LC" : "BE";
}

const char *endPathName(baton_share_end_path P) {
  switch (P) {
  case BATON_SHARE_END_GPU_WRITE:
    return "gpu-write";
  case BATON_SHARE_END_EVENT_POLL:
    return "event-poll";
  case BATON_SHARE_END_UNUSED:
    break;
  }
  return "-";
}

const char *stateOf(const baton_share_process &P) {
  if (!P.alive)
    return P.dead ? "dead" : "silent";
  if (P.cls == BATON_SHARE_LATENCY_CRITICAL)
    return P.lc_outstanding ? "busy" : "idle";
  return P.be_paused ? "paused" : "running";
}

std::string age(uint64_t Micros) {
  char Buf[32];
  if (Micros < 10000000)
    std::snprintf(Buf, sizeof(Buf), "%" PRIu64 "ms", Micros / 1000);
  else
    std::snprintf(Buf, sizeof(Buf), "%" PRIu64 "s", Micros / 1000000);
  return Buf;
}

/// A counter of the process's class, or "-" for the other class.
std::string count(const baton_share_process &P, baton_share_class Of,
                  uint64_t Value) {
  return P.cls == Of ? std::to_string(Value) : "-";
}

void printTable(const std::string &Registry,
                const std::vector<baton_share_process> &List) {
  std::printf("registry %s: %zu process%s\n", Registry.c_str(), List.size(),
              List.size() == 1 ? "" : "es");
  std::printf("%4s %8s %-16s %-5s %-7s %6s %9s %9s %7s %-10s %9s %7s %7s "
              "%6s\n",
              "SLOT", "PID", "NAME", "CLASS", "STATE", "LC-OUT", "ANNOUNCED",
              "ENDED", "EXPIRED", "END", "LAUNCHES", "PAUSES", "RESUMES",
              "BEAT");
  constexpr auto Lc = BATON_SHARE_LATENCY_CRITICAL;
  constexpr auto Be = BATON_SHARE_BEST_EFFORT;
  for (const baton_share_process &P : List)
    std::printf(
        "%4u %8d %-16.16s %-5s %-7s %6s %9s %9s %7s %-10s %9s %7s %7s %6s\n",
        P.slot, P.pid, P.name, className(P.cls), stateOf(P),
        count(P, Lc, P.lc_outstanding).c_str(),
        count(P, Lc, P.lc_announced).c_str(),
        count(P, Lc, P.lc_ended).c_str(), count(P, Lc, P.lc_expired).c_str(),
        P.cls == Lc ? endPathName(P.end_path) : "-",
        count(P, Be, P.be_launches).c_str(), count(P, Be, P.be_pauses).c_str(),
        count(P, Be, P.be_resumes).c_str(), age(P.heartbeat_age_us).c_str());
}

std::string jsonString(const char *S) {
  std::string Out = "\"";
  for (; *S; ++S) {
    unsigned char C = static_cast<unsigned char>(*S);
    if (C == '"' || C == '\\') {
      Out += '\\';
      Out += char(C);
    } else if (C < 0x20) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
      Out += Buf;
    } else {
      Out += char(C);
    }
  }
  return Out + "\"";
}

void printJson(const std::string &Registry,
               const std::vector<baton_share_process> &List) {
  std::printf("{\"registry\": %s, \"processes\": [",
              jsonString(Registry.c_str()).c_str());
  for (size_t I = 0; I < List.size(); ++I) {
    const baton_share_process &P = List[I];
    std::printf(
        "%s{\"slot\": %u, \"pid\": %d, \"name\": %s, \"class\": \"%s\", "
        "\"alive\": %s, \"dead\": %s, \"state\": \"%s\", "
        "\"heartbeat_age_us\": %" PRIu64
        ", \"joined_age_us\": %" PRIu64 ", \"lc_announced\": %" PRIu64
        ", \"lc_ended\": %" PRIu64 ", \"lc_outstanding\": %" PRIu64
        ", \"lc_expired\": %" PRIu64 ", \"lease_ms\": %u, \"end_path\": "
        "\"%s\", \"be_launches\": %" PRIu64 ", \"be_pauses\": %" PRIu64
        ", \"be_resumes\": %" PRIu64 ", \"be_paused\": %s}",
        I ? ", " : "", P.slot, P.pid, jsonString(P.name).c_str(),
        className(P.cls), P.alive ? "true" : "false",
        P.dead ? "true" : "false", stateOf(P),
        P.heartbeat_age_us, P.joined_age_us, P.lc_announced, P.lc_ended,
        P.lc_outstanding, P.lc_expired, P.lease_ms, endPathName(P.end_path),
        P.be_launches, P.be_pauses, P.be_resumes,
        P.be_paused ? "true" : "false");
  }
  std::printf("]}\n");
}

} // namespace

int main(int Argc, char **Argv) {
  CLI::App App{"Shows the processes that share a GPU through Baton "
               "(docs/sharing.md): pid, name, class (LC latency-critical, BE "
               "best-effort), state, LC work outstanding and its counts, BE "
               "launches and the pauses and resumes LC work caused."};
  int Device = 0;
  std::string Registry;
  bool Watch = false, Json = false;
  double Interval = 0.5;
  unsigned Iterations = 0;
  App.add_option("-d,--device", Device,
                 "CUDA device ordinal whose registry to read (default 0)")
      ->check(CLI::NonNegativeNumber);
  App.add_option("-r,--registry", Registry,
                 "registry name (/name); default: $BATON_SHARE_REGISTRY, "
                 "else /baton-<uid>-gpu<device>");
  App.add_flag("-w,--watch", Watch,
               "refresh every --interval seconds until interrupted");
  App.add_option("-i,--interval", Interval,
                 "seconds between refreshes with --watch (default 0.5)")
      ->check(CLI::Range(0.05, 3600.0));
  App.add_option("-n,--iterations", Iterations,
                 "with --watch, stop after this many refreshes (default: "
                 "never)");
  App.add_flag("--json", Json, "print one JSON object per refresh");
  CLI11_PARSE(App, Argc, Argv);

  if (Registry.empty()) {
    char Name[256];
    if (baton_share_default_registry(Device, Name, sizeof(Name)) !=
        BATON_SHARE_OK) {
      std::fprintf(stderr, "batonctl: %s\n", baton_share_last_error());
      return 2;
    }
    Registry = Name;
  }
  bool Clear = Watch && !Json && isatty(STDOUT_FILENO);
  for (unsigned Round = 1;; ++Round) {
    std::vector<baton_share_process> List(BATON_SHARE_MAX_PROCESSES);
    size_t Count = 0;
    baton_share_status S = baton_share_list(Registry.c_str(), Device,
                                            List.data(), List.size(), &Count);
    if (S != BATON_SHARE_OK && !(Watch && S == BATON_SHARE_ERROR_NOT_FOUND)) {
      std::fprintf(stderr, "batonctl: %s\n", baton_share_last_error());
      return S == BATON_SHARE_ERROR_NOT_FOUND ? 1 : 2;
    }
    List.resize(S == BATON_SHARE_OK ? Count : 0);
    if (Clear)
      std::printf("\x1b[H\x1b[2J");
    else if (Round > 1 && !Json)
      std::printf("\n");
    if (S != BATON_SHARE_OK)
      std::printf("%s\n", baton_share_last_error());
    else if (Json)
      printJson(Registry, List);
    else
      printTable(Registry, List);
    std::fflush(stdout);
    if (!Watch || (Iterations && Round >= Iterations))
      return 0;
    std::this_thread::sleep_for(std::chrono::duration<double>(Interval));
  }
}
