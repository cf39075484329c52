package dev.streamform.planner.sinks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SegmentedStringWriter;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.transforms.Times;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A record's JSON object written field by field, for the records written once per event or revision
 * (a changelog record, a window's revision and their keys): the text is what the {@code ObjectNode}
 * of the same fields prints ({@code toString()}, each value as {@link JsonRecords#node} makes it),
 * without building the tree and without the object mapper's serializer set up for every record (ADR
 * 0170). {@code JsonTextTest} holds the two equal.
 */
public final class JsonText {
  /** Jackson's defaults, as {@code ObjectNode.toString()} writes with them. */
  private static final JsonFactory FACTORY = new JsonFactory();

  /** Jackson's own writer for text (as {@code writeValueAsString} uses): buffers recycled. */
  private final SegmentedStringWriter out = new SegmentedStringWriter(FACTORY._getBufferRecycler());

  private final JsonGenerator g;

  /** An object begun: fields follow, {@link #close()} ends it and gives its text. */
  public JsonText() {
    try {
      g = FACTORY.createGenerator(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    with(JsonGenerator::writeStartObject);
  }

  /** The field {@code name} with {@code value} as {@link JsonRecords#node} reads it. */
  public JsonText field(String name, @Nullable Object value) {
    return with(
        g -> {
          g.writeFieldName(name);
          write(value);
        });
  }

  /** The field {@code name} holding the text {@code value} (null: JSON null). */
  public JsonText string(String name, @Nullable String value) {
    return with(g -> g.writeStringField(name, value));
  }

  /** The field {@code name} holding the integer {@code value}. */
  public JsonText number(String name, long value) {
    return with(g -> g.writeNumberField(name, value));
  }

  /** An object begun as the field {@code name}; {@link #end()} ends it. */
  public JsonText object(String name) {
    return with(g -> g.writeObjectFieldStart(name));
  }

  /** Ends the object {@link #object} began. */
  public JsonText end() {
    return with(JsonGenerator::writeEndObject);
  }

  /** Ends the record's object and gives its text. */
  public String close() {
    try {
      g.writeEndObject();
      g.close();
      return out.getAndClear();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One step of writing; writing to memory does not fail, so neither does this. */
  private interface Step {
    void on(JsonGenerator g) throws IOException;
  }

  private JsonText with(Step step) {
    try {
      step.on(g);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code value} as the node {@link JsonRecords#node} makes of it writes itself. */
  private void write(@Nullable Object value) throws IOException {
    if (value == null) {
      g.writeNull();
      return;
    }
    if (value instanceof org.joda.time.ReadableInstant) {
      value = Times.toJava((org.joda.time.ReadableInstant) value);
    }
    if (value instanceof Instant) {
      g.writeString(Timestamps.format((Instant) value));
    } else if (value instanceof BigDecimal) {
      BigDecimal d = (BigDecimal) value;
      g.writeNumber(d.scale() < 0 ? d.setScale(0) : d);
    } else if (value instanceof Long || value instanceof Integer) {
      g.writeNumber(((Number) value).longValue());
    } else if (value instanceof Double) {
      g.writeNumber((Double) value);
    } else if (value instanceof Boolean) {
      g.writeBoolean((Boolean) value);
    } else {
      g.writeString(value.toString());
    }
  }
}
