/**
 * Production pipelines: {@link dev.streamform.pipelines.ModelPipeline} builds a declared model's
 * pipeline from its source to its outputs, for file runs and Kafka jobs alike.
 */
package dev.streamform.pipelines;
