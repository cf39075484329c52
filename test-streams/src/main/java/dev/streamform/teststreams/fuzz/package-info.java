/**
 * Fuzzing a model: generated traces through the reference oracle and the runners, a disagreement
 * shrunk to a fixture ({@code streamform fuzz}).
 */
package dev.streamform.teststreams.fuzz;
