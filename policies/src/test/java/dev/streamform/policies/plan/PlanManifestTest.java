package dev.streamform.policies.plan;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamform.policies.project.Project;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanManifestTest {
  @TempDir Path dir;
  private int projects;

  private PlanManifest manifest(String sources, String models, String sql) throws Exception {
    Path p = Files.createDirectories(dir.resolve("p" + projects++));
    Files.writeString(p.resolve("sources.yml"), sources);
    Files.writeString(p.resolve("streamform.yml"), models);
    Files.createDirectories(p.resolve("models"));
    Files.writeString(p.resolve("models/customer_metrics.sql"), sql);
    return PlanManifest.of(Project.load(p), "customer_metrics");
  }

  private static final String SQL =
      "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders')"
          + " WHERE amount > 0 GROUP BY customer_id";

  @Test
  void aProjectWithoutEventTimeGivesTheManifestWrittenBeforeEventTimeExisted() throws Exception {
    String json =
        manifest(
                "sources:\n"
                    + "  orders:\n"
                    + "    connector: kafka\n"
                    + "    topic: orders\n"
                    + "    schema:\n"
                    + "      customer_id: int64\n"
                    + "      amount: decimal(12,2)\n"
                    + "      ordered_at: timestamp\n",
                "models:\n  customer_metrics:\n    materialized: upsert\n    key: [customer_id]\n",
                SQL)
            .toJson();
    // the manifest of this processing-time project as it was written (and reviewed) before any
    // time field existed: byte for byte
    try (InputStream before = getClass().getResourceAsStream("manifest-without-event-time.json")) {
      assertEquals(new String(before.readAllBytes(), StandardCharsets.UTF_8), json);
    }
    assertThat(json, not(containsString("\"time\"")));
    assertThat(json, not(containsString("watermark")));
  }

  @Test
  void theManifestIsTheSameHoweverTheYamlIsWritten() throws Exception {
    String a =
        manifest(
                "sources:\n"
                    + "  orders:\n"
                    + "    connector: kafka\n"
                    + "    topic: orders\n"
                    + "    schema:\n"
                    + "      customer_id: int64\n"
                    + "      amount: decimal(12,2)\n"
                    + "      ordered_at: timestamp\n"
                    + "    event_time: ordered_at\n"
                    + "    watermark: 5m\n",
                "models:\n"
                    + "  customer_metrics:\n"
                    + "    materialized: upsert\n"
                    + "    key: [customer_id]\n"
                    + "    window: 1h\n"
                    + "    allowed_lateness: 1d\n",
                SQL)
            .toJson();
    String b =
        manifest(
                "sources:\n"
                    + "  orders:\n"
                    + "    watermark: \"300s\"\n"
                    + "    late_events: drop\n"
                    + "    event_time: 'ordered_at'\n"
                    + "    schema: {ordered_at: timestamp, amount: 'decimal(12,2)', customer_id:"
                    + " int64}\n"
                    + "    topic: orders\n"
                    + "    format: json\n"
                    + "    connector: kafka\n",
                "models:\n  customer_metrics:\n    allowed_lateness: 24h\n    window: {size: 60m}\n"
                    + "    key: [customer_id]\n    materialized: upsert\n    generation: 1\n",
                SQL)
            .toJson();
    assertEquals(a, b);
    assertEquals(
        a,
        manifest(
                "sources:\n"
                    + "  orders:\n"
                    + "    connector: kafka\n"
                    + "    topic: orders\n"
                    + "    schema:\n"
                    + "      customer_id: int64\n"
                    + "      amount: decimal(12,2)\n"
                    + "      ordered_at: timestamp\n"
                    + "    event_time: ordered_at\n"
                    + "    watermark: 5m\n",
                "models:\n"
                    + "  customer_metrics:\n"
                    + "    materialized: upsert\n"
                    + "    key: [customer_id]\n"
                    + "    window: 1h\n"
                    + "    allowed_lateness: 1d\n",
                SQL)
            .toJson(),
        "stable across runs");
  }

  @Test
  void theTimePolicyBindsEveryFieldWithItsDigest() throws Exception {
    JsonNode tree =
        manifest(
                "sources:\n"
                    + "  orders:\n"
                    + "    connector: kafka\n"
                    + "    topic: orders\n"
                    + "    partitions: 3\n"
                    + "    schema:\n"
                    + "      customer_id: int64\n"
                    + "      amount: decimal(12,2)\n"
                    + "      ordered_at: timestamp\n"
                    + "    event_time: ordered_at\n"
                    + "    watermark: 5m\n"
                    + "    idle_after: 1m\n"
                    + "    late_events: keep\n",
                "models:\n"
                    + "  customer_metrics:\n"
                    + "    key: [customer_id]\n"
                    + "    window: {size: 1h, every: 30m}\n"
                    + "    allowed_lateness: 1d\n"
                    + "    early_results: every 3 events\n"
                    + "    generation: 4\n",
                SQL)
            .toTree();
    JsonNode policy = tree.get("time_policy").get("policy");
    assertEquals("orders", policy.get("sources").get(0).get("name").asText());
    assertEquals(3, policy.get("sources").get(0).get("partitions").asInt());
    assertEquals("ordered_at", policy.get("timestamp_extractor").asText());
    assertEquals("UTC", policy.get("time_zone").asText());
    assertEquals("5m", policy.get("watermark").asText());
    assertEquals("1m", policy.get("idleness").asText());
    assertEquals("hopping 1h every 30m", policy.get("window").asText());
    assertThat(policy.get("trigger").asText(), containsString("early every 3 events"));
    assertEquals("24h", policy.get("allowed_lateness").asText()); // a fixed day (ADR 0021)
    assertEquals("keep", policy.get("late_classification").asText());
    assertThat(policy.get("retention").asText(), containsString("window end + allowed lateness"));
    assertThat(policy.get("sink_correction_mode").asText(), containsString("compare-and-set"));
    assertEquals(4, policy.get("generation").asInt());
    assertEquals(
        PlanManifest.digest(
            new com.fasterxml.jackson.databind.ObjectMapper()
                .convertValue(policy, java.util.Map.class)),
        tree.get("time_policy").get("digest").asText(),
        "the digest covers the policy");
    for (JsonNode node : tree.get("nodes")) {
      assertEquals(
          "ordered_at", node.get("time").asText(), node.get("id") + " carries the attribute");
    }
  }

  @Test
  void anyPolicyFieldMovesThePolicyDigest() throws Exception {
    String sources =
        "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    schema:\n"
            + "      customer_id: int64\n      amount: decimal(12,2)\n      ordered_at: timestamp\n"
            + "    event_time: ordered_at\n";
    String model = "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1h\n";
    String base = digest(manifest(sources, model, SQL));
    assertThat(digest(manifest(sources + "    watermark: 1m\n", model, SQL)), not(base));
    assertThat(digest(manifest(sources + "    idle_after: 1m\n", model, SQL)), not(base));
    assertThat(digest(manifest(sources + "    late_events: keep\n", model, SQL)), not(base));
    assertThat(digest(manifest(sources, model + "    allowed_lateness: 1m\n", SQL)), not(base));
    assertThat(
        digest(manifest(sources, model + "    early_results: every 2 events\n", SQL)), not(base));
    assertThat(digest(manifest(sources, model + "    generation: 2\n", SQL)), not(base));
    assertEquals(
        base,
        digest(manifest(sources + "    watermark: 0s\n", model, SQL)),
        "a default written out");
  }

  private static String digest(PlanManifest m) {
    return m.toTree().get("time_policy").get("digest").asText();
  }
}
