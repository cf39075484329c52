/**
 * Declarations to a Beam pipeline: {@link dev.streamform.planner.DeclaredSource} and {@link
 * dev.streamform.planner.DeclaredModel} turn a project's source and model into the engine's
 * transforms, the one place fixtures, runs, fuzz and benchmarks get them from.
 */
package dev.streamform.planner;
