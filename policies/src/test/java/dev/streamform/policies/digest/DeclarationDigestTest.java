package dev.streamform.policies.digest;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The digest follows meaning, not spelling. */
class DeclarationDigestTest {
  @TempDir Path dir;

  private static final String SOURCES =
      """
      sources:
        orders:
          connector: kafka
          topic: orders
          format: json
          schema:
            customer_id: int64
            amount: decimal(12,2)
            ordered_at: timestamp
          event_time: ordered_at
          watermark: 5m
          late_events: drop
      """;

  /**
   * The same source: keys and columns reordered, values quoted, spacing changed, defaults and
   * canonical spelling varied.
   */
  private static final String SOURCES_RESPELT =
      """
      sources:
          orders:
              late_events:   "drop"
              watermark: '300s'
              event_time: "ordered_at"
              schema: {ordered_at: "timestamp", amount: "decimal( 12 , 2 )", customer_id: INT64}
              topic:     orders
              connector: "kafka"
      """;

  private static final String MODELS =
      "models:\n"
          + "  customer_metrics:\n"
          + "    materialized: upsert\n"
          + "    key: [customer_id]\n"
          + "    retention: 30d\n";

  private static final String MODELS_RESPELT =
      "models:\n  customer_metrics:\n    retention: \"720h\"\n    key:\n      - 'customer_id'\n";

  private Project project(String name, String sources, String models)
      throws IOException, InvalidProjectException {
    Path p = dir.resolve(name);
    Files.createDirectories(p.resolve("models"));
    Files.writeString(p.resolve("sources.yml"), sources);
    Files.writeString(p.resolve("streamform.yml"), models);
    Files.writeString(
        p.resolve("models/customer_metrics.sql"),
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY"
            + " customer_id");
    return Project.load(p);
  }

  private String sourceDigest(String name, String sources) throws Exception {
    return DeclarationDigest.of(project(name, sources, MODELS).sources().get("orders"));
  }

  private String modelDigest(String name, String models) throws Exception {
    return DeclarationDigest.of(project(name, SOURCES, models).models().get("customer_metrics"));
  }

  @Test
  void isSha256Hex() throws Exception {
    assertThat(sourceDigest("a", SOURCES), matchesPattern("[0-9a-f]{64}"));
  }

  @Test
  void sourceDigestIgnoresKeyOrderQuotingWhitespaceAndSpelling() throws Exception {
    assertThat(sourceDigest("b", SOURCES_RESPELT), is(sourceDigest("a", SOURCES)));
  }

  @Test
  void modelDigestIgnoresKeyOrderQuotingStyleAndDefaults() throws Exception {
    assertThat(modelDigest("b", MODELS_RESPELT), is(modelDigest("a", MODELS)));
  }

  @Test
  void aRealChangeChangesTheSourceDigest() throws Exception {
    String before = sourceDigest("a", SOURCES);
    assertThat(
        sourceDigest("b", SOURCES.replace("watermark: 5m", "watermark: 6m")), is(not(before)));
    assertThat(
        sourceDigest("c", SOURCES.replace("late_events: drop", "late_events: keep")),
        is(not(before)));
    assertThat(
        sourceDigest("d", SOURCES.replace("decimal(12,2)", "decimal(12,3)")), is(not(before)));
    assertThat(
        sourceDigest("e", SOURCES.replace("topic: orders", "topic: orders_v2")), is(not(before)));
  }

  @Test
  void aRealChangeChangesTheModelDigest() throws Exception {
    assertThat(modelDigest("b", MODELS.replace("30d", "31d")), is(not(modelDigest("a", MODELS))));
  }

  private static final String WINDOWED =
      "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1h\n";

  /** The same windowed model: the window as a map without every, every default written out. */
  private static final String WINDOWED_RESPELT =
      "models:\n  customer_metrics:\n    generation: 1\n    early_results: \"None\"\n"
          + "    allowed_lateness: 0ms\n    window: {size: 60m}\n    materialized: upsert\n"
          + "    key: [customer_id]\n";

  @Test
  void windowedModelDigestIgnoresSpellingAndDefaults() throws Exception {
    assertThat(modelDigest("b", WINDOWED_RESPELT), is(modelDigest("a", WINDOWED)));
    assertThat(
        modelDigest("c", WINDOWED.replace("1h", "{size: 1h, every: 1h}")),
        is(modelDigest("a", WINDOWED)));
  }

  @Test
  void windowedModelCanonicalFormWritesEveryWindowFieldOut() throws Exception {
    assertThat(
        DeclarationDigest.canonicalForm(
            project("a", SOURCES, WINDOWED).models().get("customer_metrics")),
        is(
            "allowed_lateness=\"0s\";early_results=\"none\";generation=1;key=[\"customer_id\"];"
                + "kind=\"model\";materialized=\"upsert\";name=\"customer_metrics\";"
                + "window={\"every\":\"1h\",\"size\":\"1h\"}"));
    assertThat(
        DeclarationDigest.canonicalForm(
            project(
                    "b",
                    SOURCES,
                    WINDOWED.replace(
                        "1h",
                        "{size: 1h, every: 15m}\n"
                            + "    allowed_lateness: 600s\n"
                            + "    early_results: every 3 events"))
                .models()
                .get("customer_metrics")),
        is(
            "allowed_lateness=\"10m\";early_results=\"every 3 events\";generation=1;"
                + "key=[\"customer_id\"];kind=\"model\";materialized=\"upsert\";name=\"customer_metrics\";"
                + "window={\"every\":\"15m\",\"size\":\"1h\"}"));
  }

  @Test
  void aRealChangeToAWindowedModelChangesItsDigest() throws Exception {
    String before = modelDigest("a", WINDOWED);
    assertThat(modelDigest("b", WINDOWED.replace("1h", "2h")), is(not(before)));
    assertThat(modelDigest("c", WINDOWED.replace("1h", "{size: 1h, every: 30m}")), is(not(before)));
    assertThat(modelDigest("d", WINDOWED + "    allowed_lateness: 1s\n"), is(not(before)));
    assertThat(modelDigest("e", WINDOWED + "    early_results: every 1 event\n"), is(not(before)));
    assertThat(modelDigest("f", WINDOWED + "    early_results: every 1s\n"), is(not(before)));
    assertThat(modelDigest("g", WINDOWED + "    generation: 2\n"), is(not(before)));
    assertThat(modelDigest("h", WINDOWED.replace("    window: 1h\n", "")), is(not(before)));
  }

  @Test
  void anUpsertModelsFormHasNoWindowFieldsAndItsGenerationOnlyWhenNotOne() throws Exception {
    assertThat(
        DeclarationDigest.canonicalForm(
            project("a", SOURCES, MODELS).models().get("customer_metrics")),
        is(
            "key=[\"customer_id\"];kind=\"model\";materialized=\"upsert\";name=\"customer_metrics\";"
                + "retention=\"30d\""));
    assertThat(modelDigest("b", MODELS + "    generation: 1\n"), is(modelDigest("a", MODELS)));
    assertThat(modelDigest("c", MODELS + "    generation: 2\n"), is(not(modelDigest("a", MODELS))));
  }

  /**
   * A fixed day is written back as {@code 24h} (ADR 0021), but the digest is a function of the
   * meaning and must not move with that spelling: a declaration of one-day durations keeps the
   * canonical form (and so the digest) it had when every day was spelt {@code 1d}.
   */
  @Test
  void oneDayDurationsKeepTheCanonicalFormTheyHadBeforeADayWasWritten24h() throws Exception {
    String oneDay =
        SOURCES.replace("watermark: 5m", "watermark: 1d\n    idle_after: 24h")
            + "    event_id: customer_id\n    duplicates_within: 1d\n";
    Project p =
        project(
            "a",
            oneDay,
            "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 24h\n"
                + "    allowed_lateness: 1d\n    early_results: every 24h\n");
    assertThat(
        DeclarationDigest.canonicalForm(p.sources().get("orders")),
        is(
            "connector=\"kafka\";duplicates_within=\"1d\";event_id=\"customer_id\";"
                + "event_time=\"ordered_at\";format=\"json\";idle_after=\"1d\";kind=\"source\";"
                + "late_events=\"drop\";name=\"orders\";schema={\"amount\":\"decimal(12,2)\","
                + "\"customer_id\":\"int64\",\"ordered_at\":\"timestamp\"};topic=\"orders\";"
                + "watermark=\"1d\""));
    assertThat(
        DeclarationDigest.canonicalForm(p.models().get("customer_metrics")),
        is(
            "allowed_lateness=\"1d\";early_results=\"every 1d\";generation=1;"
                + "key=[\"customer_id\"];kind=\"model\";materialized=\"upsert\";"
                + "name=\"customer_metrics\";window={\"every\":\"1d\",\"size\":\"1d\"}"));
    assertThat(
        DeclarationDigest.canonicalForm(
            project("b", SOURCES, MODELS.replace("30d", "24h")).models().get("customer_metrics")),
        is(
            "key=[\"customer_id\"];kind=\"model\";materialized=\"upsert\";"
                + "name=\"customer_metrics\";retention=\"1d\""));
  }

  @Test
  void canonicalFormIsReadable() throws Exception {
    assertThat(
        DeclarationDigest.canonicalForm(project("a", SOURCES, MODELS).sources().get("orders")),
        is(
            "connector=\"kafka\";event_time=\"ordered_at\";format=\"json\";kind=\"source\";"
                + "late_events=\"drop\";name=\"orders\";schema={\"amount\":\"decimal(12,2)\","
                + "\"customer_id\":\"int64\",\"ordered_at\":\"timestamp\"};topic=\"orders\";watermark=\"5m\""));
  }
}
