/**
 * File sources ({@code connector: file}): each file a partition, each line an offset; a run reads
 * them to their end and writes the model's outputs as JSON lines (docs/guides/files.md).
 */
package dev.streamform.pipelines.file;
