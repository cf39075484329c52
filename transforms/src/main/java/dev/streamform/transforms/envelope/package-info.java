/**
 * The records a source delivers and their coders: {@link
 * dev.streamform.transforms.envelope.SourceRecord} (partition, offset, row) and its envelope.
 */
package dev.streamform.transforms.envelope;
