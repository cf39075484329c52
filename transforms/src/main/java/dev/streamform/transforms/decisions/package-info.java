/**
 * Stream scoring: one decision per event with its identity, features as of occurrence, late actions
 * and dead letters (docs/semantics.md §11).
 */
package dev.streamform.transforms.decisions;
