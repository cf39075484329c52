/**
 * The engine: composite Beam transforms that make event time declared and exact on every runner.
 * Depends on Beam and streamform-core only. {@link dev.streamform.transforms.StreamformMetrics}
 * names every metric.
 */
package dev.streamform.transforms;
