package dev.streamform.transforms;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.schemas.Schema;

/**
 * {@link RowCoder}s whose equal schemas share one generated coder class. Beam generates a coder
 * class (ByteBuddy) for every schema UUID it meets, and gives a schema without one a random UUID: a
 * fixture suite that builds its pipelines' schemas anew on every run generated 23 classes per run
 * of the seed fixtures, so a warm JVM ({@code streamform test --watch}, a test class running many
 * fixtures) paid for the generation again each time and kept every class. Here the first schema of
 * each shape seen in the JVM stands for all schemas equal to it (same fields, types, nullability
 * and options: {@link Schema#equals}), so it and its generated class are reused.
 */
public final class RowCoders {
  private RowCoders() {}

  private static final ConcurrentMap<Schema, Schema> SHAPES = new ConcurrentHashMap<>();

  /** A {@link RowCoder} for {@code schema}, through the first schema equal to it. */
  public static RowCoder of(Schema schema) {
    return RowCoder.of(SHAPES.computeIfAbsent(schema, s -> s));
  }
}
