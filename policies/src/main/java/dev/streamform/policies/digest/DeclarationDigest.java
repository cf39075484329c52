package dev.streamform.policies.digest;

import dev.streamform.core.time.Durations;
import dev.streamform.policies.declarations.EarlyResults;
import dev.streamform.policies.declarations.EffectDeclaration;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A SHA-256 digest of a declaration, computed from its canonical form: keys sorted, durations and
 * types in their canonical spelling, defaults written out. Two declarations that mean the same give
 * the same digest however the YAML was written (key order, quoting, whitespace, a default written
 * or left out); any change of meaning changes it. The key list of a model keeps its order, which is
 * part of its meaning.
 *
 * <p>A source's clock fields (watermark, late events, idle) are part of its form only when it has
 * event time, so a processing-time source has the same digest as before event time existed. In the
 * same way a model's window fields (window size and every, allowed lateness, early results) are
 * part of its form only when it is windowed, and its generation when it is windowed or not 1: an
 * upsert model has the same digest as before windows existed. A model's digest covers its {@code
 * streamform.yml} declaration, not its query text. Its effects are part of its form only when it
 * declares some (each with sorted keys and its provider's capabilities written out), so a model
 * without effects has the same digest as before effects existed.
 */
public final class DeclarationDigest {
  private DeclarationDigest() {}

  /** The SHA-256 of {@link #canonicalForm(SourceDeclaration)}, as 64 lowercase hex digits. */
  public static String of(SourceDeclaration source) {
    return sha256(canonicalForm(source));
  }

  /** The SHA-256 of {@link #canonicalForm(ModelDeclaration)}, as 64 lowercase hex digits. */
  public static String of(ModelDeclaration model) {
    return sha256(canonicalForm(model));
  }

  /**
   * The source as one line of sorted {@code key=value} pairs, e.g. {@code connector="kafka";...}.
   */
  public static String canonicalForm(SourceDeclaration s) {
    Map<String, String> form = new TreeMap<>();
    form.put("kind", quote("source"));
    form.put("name", quote(s.name()));
    form.put("connector", quote(s.connector().yamlName()));
    s.topic().ifPresent(topic -> form.put("topic", quote(topic)));
    s.path().ifPresent(path -> form.put("path", quote(path)));
    s.partitions().ifPresent(n -> form.put("partitions", String.valueOf(n)));
    form.put("format", quote(s.format()));
    Map<String, String> schema = new TreeMap<>();
    s.schema().forEach((column, type) -> schema.put(column, type.toString()));
    form.put(
        "schema",
        schema.entrySet().stream()
            .map(e -> quote(e.getKey()) + ":" + quote(e.getValue()))
            .collect(Collectors.joining(",", "{", "}")));
    s.eventTime()
        .ifPresent(
            column -> {
              form.put("event_time", quote(column));
              form.put("watermark", quote(duration(s.watermark())));
              form.put("late_events", quote(s.lateEvents().yamlName()));
              s.idleAfter().ifPresent(idle -> form.put("idle_after", quote(duration(idle))));
            });
    // only when declared, so a source without event_id keeps the digest it had
    s.eventId()
        .ifPresent(
            column -> {
              form.put("event_id", quote(column));
              form.put("duplicates_within", quote(duration(s.duplicatesWithin().get())));
            });
    // only when key, so a source with the default reading keeps the digest it had (ADR 0073)
    if (s.eventIdScope() == SourceDeclaration.EventIdScope.KEY) {
      form.put("event_id_scope", quote(s.eventIdScope().yamlName()));
    }
    return join(form);
  }

  /**
   * The model as one line of sorted {@code key=value} pairs, e.g. {@code key=["customer_id"];...};
   * a windowed model's window is always written with both size and every, e.g. {@code
   * window={"every":"1h","size":"1h"}}, so {@code window: 1h} and {@code window: {size: 1h}} are
   * the same.
   */
  public static String canonicalForm(ModelDeclaration m) {
    Map<String, String> form = new TreeMap<>();
    form.put("kind", quote("model"));
    form.put("name", quote(m.name()));
    form.put("materialized", quote(m.materialized().yamlName()));
    form.put("key", list(m.key()));
    m.retention().ifPresent(d -> form.put("retention", quote(duration(d))));
    m.window()
        .ifPresent(
            w -> {
              if (w.isCalendar()) {
                // a calendar window's form names its unit, zone and week start (fixed windows'
                // unchanged)
                form.put(
                    "window",
                    "{"
                        + quote("calendar")
                        + ":"
                        + quote(w.yamlText())
                        + ","
                        + quote("time_zone")
                        + ":"
                        + quote(w.zoneOrUtc().getId())
                        + ","
                        + quote("week_starts")
                        + ":"
                        + quote(w.weekStarts().name().toLowerCase(java.util.Locale.ROOT))
                        + "}");
              } else {
                form.put(
                    "window",
                    "{"
                        + quote("every")
                        + ":"
                        + quote(duration(w.every()))
                        + ","
                        + quote("size")
                        + ":"
                        + quote(duration(w.size()))
                        + "}");
                w.timeZone().ifPresent(z -> form.put("time_zone", quote(z.getId())));
              }
              form.put("allowed_lateness", quote(duration(m.allowedLateness())));
              form.put("early_results", quote(earlyResults(m.earlyResults())));
            });
    if (m.windowed() || m.generation() != 1) {
      form.put("generation", String.valueOf(m.generation()));
    }
    if (!m.effects().isEmpty()) {
      form.put(
          "effects",
          m.effects().stream()
              .map(DeclarationDigest::effect)
              .collect(Collectors.joining(",", "[", "]")));
    }
    m.topic().ifPresent(t -> form.put("topic", quote(t)));
    m.lateTopic().ifPresent(t -> form.put("late_topic", quote(t)));
    m.quarantineTopic().ifPresent(t -> form.put("quarantine_topic", quote(t)));
    return join(form);
  }

  /**
   * A duration as digests have always spelt it: {@link Durations#format}, but exactly one day as
   * {@code 1d}, the spelling of every digest computed before a fixed day was written back as {@code
   * 24h} (docs/decisions/0021). The form is hashed, never shown, so the older spelling keeps every
   * digest of a one-day duration where it was.
   */
  private static String duration(Duration d) {
    return d.equals(Duration.ofDays(1)) ? "1d" : Durations.format(d);
  }

  /** {@link EarlyResults#yamlText()}, with the interval spelt as {@link #duration} spells it. */
  private static String earlyResults(EarlyResults early) {
    return early.kind() == EarlyResults.Kind.EVERY_INTERVAL
        ? "every " + duration(early.everyInterval())
        : early.yamlText();
  }

  /**
   * An effect's {@link EffectDeclaration#fields} with their keys sorted, the provider's
   * capabilities written out. The form leaves out what it always has, so that no digest moves:
   * {@code mode} unless it is incremental (so the digests of effects declared before it stay the
   * same), and where a credential is read from ({@code authorization_env}, {@code
   * authorization_file}).
   */
  private static String effect(EffectDeclaration e) {
    Map<String, String> provider = new TreeMap<>();
    e.providerFields().forEach((key, value) -> provider.put(key, scalar(value)));
    provider.remove("authorization_env");
    provider.remove("authorization_file");
    Map<String, String> form = new TreeMap<>();
    e.fields()
        .forEach(
            (key, value) ->
                form.put(key, key.equals("provider") ? object(provider) : scalar(value)));
    if (!e.incremental()) {
      form.remove("mode");
    }
    return object(form);
  }

  /** A field's value in a form: a string quoted, a boolean as it is. */
  private static String scalar(Object value) {
    return value instanceof String s ? quote(s) : String.valueOf(value);
  }

  private static String object(Map<String, String> fields) {
    return fields.entrySet().stream()
        .map(e -> quote(e.getKey()) + ":" + e.getValue())
        .collect(Collectors.joining(",", "{", "}"));
  }

  private static String join(Map<String, String> form) {
    return form.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(";"));
  }

  private static String list(List<String> items) {
    return items.stream().map(DeclarationDigest::quote).collect(Collectors.joining(",", "[", "]"));
  }

  /** A JSON-style string literal, so no value can forge a separator. */
  private static String quote(String text) {
    StringBuilder s = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        s.append('\\').append(c);
      } else if (c < 0x20) {
        s.append(String.format("\\u%04x", (int) c));
      } else {
        s.append(c);
      }
    }
    return s.append('"').toString();
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
