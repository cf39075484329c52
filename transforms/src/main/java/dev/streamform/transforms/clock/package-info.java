/**
 * The source clock: each partition's watermark, lateness judged at arrival, punctuations, idleness,
 * offset order, and the log order keyed stages apply events in (docs/semantics.md §2).
 */
package dev.streamform.transforms.clock;
