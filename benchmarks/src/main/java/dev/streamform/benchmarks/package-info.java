/**
 * Throughput and state side by side, in one run: Streamform's pipelines, plain Beam, native Flink
 * and the reference oracle on the same generated workload, every answer checked against the oracle
 * ({@code benchmarks/run}; docs/benchmarks.md).
 */
package dev.streamform.benchmarks;
