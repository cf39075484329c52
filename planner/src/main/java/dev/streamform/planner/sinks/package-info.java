/**
 * The JSON records a declared model's outputs become ({@link
 * dev.streamform.planner.sinks.ModelSinks}: keys and values, positions as fields), and the JSON
 * reading of a source's records ({@link dev.streamform.planner.sinks.JsonRecords}): in the planner,
 * so that {@code run} and fixtures render and read the same records (docs/decisions/0057).
 */
package dev.streamform.planner.sinks;
