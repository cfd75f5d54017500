#!/usr/bin/env python3
"""The latency-critical process of the launch-interposer demo: a small
PyTorch transformer encoder (fp16) answering requests that arrive as a
Poisson process, each request's latency measured from its arrival to its
completion (queueing included). Knows nothing of Baton: under
libbaton_preload.so with BATON_SCHEDULE=latency-critical its launches are
announced to the processes sharing the GPU.

  infer.py --seconds S --rate R [--json FILE]
"""
import argparse
import json
import random
import time


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--rate", type=float, default=50, help="requests/s")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--json")
    args = parser.parse_args()

    import torch
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        d_model=512, nhead=8, dim_feedforward=2048, dropout=0.0,
        batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=args.layers,
                                        enable_nested_tensor=False)
    model = model.half().cuda().eval()
    x = torch.randn(args.batch, 128, 512, device="cuda", dtype=torch.half)
    stream = torch.cuda.Stream()

    def request():
        with torch.cuda.stream(stream), torch.inference_mode():
            model(x)
        stream.synchronize()

    for _ in range(20):  # warm-up: allocator, cuBLAS handles, kernels
        request()
    alone = []
    for _ in range(20):
        t0 = time.perf_counter()
        request()
        alone.append(time.perf_counter() - t0)

    rng = random.Random(1)
    latencies = []
    start_wall = time.time()
    start = time.perf_counter()
    arrival = start
    while arrival - start < args.seconds:
        arrival += rng.expovariate(args.rate)
        now = time.perf_counter()
        if arrival > now:
            time.sleep(arrival - now)
        request()
        latencies.append(time.perf_counter() - arrival)
    end_wall = time.time()

    result = {
        "requests": len(latencies),
        "rate": args.rate,
        "service_ms": 1e3 * percentile(alone, 0.5),
        "p50_ms": 1e3 * percentile(latencies, 0.50),
        "p99_ms": 1e3 * percentile(latencies, 0.99),
        "mean_ms": 1e3 * sum(latencies) / len(latencies),
        "start": start_wall,
        "end": end_wall,
    }
    print("infer: %d requests, p50 %.2f ms, p99 %.2f ms (service %.2f ms)" %
          (result["requests"], result["p50_ms"], result["p99_ms"],
           result["service_ms"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    main()
