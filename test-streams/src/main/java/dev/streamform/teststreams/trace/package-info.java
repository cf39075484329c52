/**
 * Generated traces: events out of order over several partitions, watermark items on and 1 ms off
 * the edges, and their interleavings.
 */
package dev.streamform.teststreams.trace;
