package dev.streamform.policies.plan;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamform.core.state.StateLayouts;
import dev.streamform.policies.plan.PlanDiff.Classification;
import dev.streamform.policies.plan.PlanDiff.NodeChange;
import dev.streamform.policies.project.Project;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plan diff's rules (docs/semantics.md §9), each with the seed's own examples: declaring
 * retention, declaring event time, a longer watermark, late events kept, a window edit, a filter
 * edit, a partition count, and nothing at all.
 */
class PlanDiffTest {
  @TempDir Path dir;

  private static final String ORDERS =
      "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    schema:\n"
          + "      customer_id: int64\n      amount: decimal(12,2)\n      ordered_at: timestamp\n";
  private static final String CLOCK = "    event_time: ordered_at\n    watermark: 5m\n";
  private static final String UPSERT =
      "models:\n  customer_metrics:\n    materialized: upsert\n    key: [customer_id]\n";
  private static final String SQL =
      "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY customer_id";
  private static final String FILTERED =
      "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') WHERE amount > 0 GROUP"
          + " BY customer_id";

  private int projects;

  private PlanManifest manifest(String sources, String models, String sql) throws Exception {
    Path p = Files.createDirectories(dir.resolve("p" + projects++));
    Files.writeString(p.resolve("sources.yml"), sources);
    Files.writeString(p.resolve("streamform.yml"), models);
    Files.createDirectories(p.resolve("models"));
    Files.writeString(p.resolve("models/customer_metrics.sql"), sql);
    return PlanManifest.of(Project.load(p), "customer_metrics");
  }

  private static PlanDiff diff(PlanManifest running, PlanManifest proposed) throws Exception {
    // through the text, as plan reads a saved file
    var tree = new ObjectMapper().readTree(running.toJson());
    PlanDiff.requireManifest(tree);
    return PlanDiff.between(tree, proposed.toTree());
  }

  private static Classification of(PlanDiff diff, String id) {
    return node(diff, id).classification();
  }

  private static NodeChange node(PlanDiff diff, String id) {
    return diff.nodes().stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
  }

  private static String reasons(PlanDiff diff, String id) {
    return String.join("\n", node(diff, id).reasons());
  }

  @Test
  void nothingChangedIsSafeEverywhere() throws Exception {
    PlanManifest a = manifest(ORDERS + CLOCK, UPSERT + "    retention: 10m\n", FILTERED);
    PlanDiff d = diff(a, manifest(ORDERS + CLOCK, UPSERT + "    retention: 10m\n", FILTERED));
    assertThat(
        d.nodes().stream().map(NodeChange::classification).distinct().collect(Collectors.toList()),
        contains(Classification.SAFE));
    assertEquals(3, d.nodes().size());
    assertEquals(0, d.exitCode());
    assertThat(d.generationRequired(), empty());
  }

  @Test
  void declaringRetentionMovesOnlyTheStateDigest() throws Exception {
    PlanManifest before = manifest(ORDERS + CLOCK, UPSERT, SQL);
    PlanManifest after = manifest(ORDERS + CLOCK, UPSERT + "    retention: 30d\n", SQL);
    PlanDiff d = diff(before, after);
    assertEquals(Classification.SAFE, of(d, "source:orders"));
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(d, "aggregate"));
    assertThat(reasons(d, "aggregate"), containsString("state.retention: unbounded -> 30d"));
    // only the state digest: definition and schema digests of every node are unchanged
    var b = before.toTree();
    var a = after.toTree();
    for (int i = 0; i < 2; i++) {
      assertEquals(
          b.get("nodes").get(i).get("definition_digest"),
          a.get("nodes").get(i).get("definition_digest"));
      assertEquals(
          b.get("nodes").get(i).get("schema_digest"), a.get("nodes").get(i).get("schema_digest"));
    }
    assertThat(
        b.get("nodes").get(1).get("state").get("digest"),
        not(equalTo(a.get("nodes").get(1).get("state").get("digest"))));
    assertThat("retention is not watermark topology", d.generationRequired(), empty());
    assertEquals(2, d.exitCode());
  }

  /**
   * The duplicate detection keeps each id in state until its horizon and decides which events reach
   * the aggregate: declaring, removing or changing it is a state migration of its own node (found
   * by a read-only audit of plans: it was in no node, and plan called each such edit SAFE).
   */
  @Test
  void duplicateDetectionDeclaredChangedOrRemovedMigratesItsState() throws Exception {
    String ids = "    event_id: customer_id\n    duplicates_within: 30m\n";
    PlanManifest none = manifest(ORDERS + CLOCK, UPSERT, SQL);
    PlanManifest thirty = manifest(ORDERS + CLOCK + ids, UPSERT, SQL);
    PlanManifest twoHours = manifest(ORDERS + CLOCK + ids.replace("30m", "2h"), UPSERT, SQL);
    PlanManifest byKey = manifest(ORDERS + CLOCK + ids + "    event_id_scope: key\n", UPSERT, SQL);

    PlanDiff declared = diff(none, thirty);
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(declared, "duplicates"));
    assertThat(reasons(declared, "duplicates"), containsString("new node with keyed state"));
    assertEquals(2, declared.exitCode());

    PlanDiff longer = diff(thirty, twoHours);
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(longer, "duplicates"));
    assertThat(reasons(longer, "duplicates"), containsString("state.within: 30m -> 2h"));
    assertEquals(2, longer.exitCode());

    PlanDiff scoped = diff(thirty, byKey);
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(scoped, "duplicates"));
    assertThat(
        reasons(scoped, "duplicates"), containsString("state.scope: source -> key [customer_id]"));

    PlanDiff removed = diff(thirty, none);
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(removed, "duplicates"));
    assertThat(
        reasons(removed, "duplicates"), containsString("removed: its keyed state is dropped"));

    assertEquals(0, diff(thirty, manifest(ORDERS + CLOCK + ids, UPSERT, SQL)).exitCode());
  }

  @Test
  void aMovedStateLayoutIsAStateMigration() throws Exception {
    PlanManifest before = manifest(ORDERS + CLOCK, UPSERT + "    retention: 10m\n", SQL);
    Path project = dir.resolve("p" + (projects - 1));
    Map<String, Integer> moved = new java.util.HashMap<>(StateLayouts.all());
    moved.put("changelog", StateLayouts.CHANGELOG + 1);
    // the same declarations, planned by a build whose changelog stage keeps its state differently
    PlanManifest after = PlanManifest.of(Project.load(project), "customer_metrics", moved);
    PlanDiff d = diff(before, after);
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(d, "aggregate"));
    assertThat(
        reasons(d, "aggregate"),
        containsString("state.state_layout: (absent) -> changelog " + moved.get("changelog")));
    assertEquals(Classification.SAFE, of(d, "source:orders"));
    // the same build: nothing moved
    assertEquals(
        Classification.SAFE,
        of(
            diff(after, PlanManifest.of(Project.load(project), "customer_metrics", moved)),
            "aggregate"));
  }

  @Test
  void declaringEventTimeMovesNoStateOrSchemaDigestButIsNeverSafe() throws Exception {
    PlanManifest before = manifest(ORDERS, UPSERT, SQL);
    PlanManifest after = manifest(ORDERS + CLOCK, UPSERT, SQL);
    var b = before.toTree();
    var a = after.toTree();
    for (int i = 0; i < 2; i++) {
      assertEquals(
          b.get("nodes").get(i).get("schema_digest"), a.get("nodes").get(i).get("schema_digest"));
      assertEquals(null, b.get("nodes").get(i).get("time"), "no time field without event time");
      assertEquals(
          "ordered_at",
          a.get("nodes").get(i).get("time").asText(),
          "every node carrying it gains time");
    }
    assertEquals(b.get("nodes").get(1).get("state"), a.get("nodes").get(1).get("state"));
    PlanDiff d = diff(before, after);
    assertEquals(Classification.COMPATIBLE, of(d, "source:orders"), "the Source is stateless");
    assertThat(reasons(d, "source:orders"), containsString("definition.watermark: (absent) -> 5m"));
    assertEquals(
        Classification.STATE_MIGRATION_REQUIRED,
        of(d, "aggregate"),
        "keyed state below a clock edit was accumulated under the old clock");
    assertThat(
        reasons(d, "aggregate"),
        containsString("source orders event_time: (absent) -> ordered_at"));
    assertThat(d.generationRequired(), hasItem(containsString("event time declared")));
  }

  @Test
  void aLongerWatermarkIsNeverSafeAndNeedsANewGeneration() throws Exception {
    String windowed = "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1h\n";
    PlanManifest before = manifest(ORDERS + CLOCK, windowed, SQL);
    String longer = ORDERS + "    event_time: ordered_at\n    watermark: 15m\n";
    PlanDiff same = diff(before, manifest(longer, windowed, SQL));
    assertEquals(Classification.COMPATIBLE, of(same, "source:orders"));
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(same, "aggregate"));
    assertThat(same.generationRequired(), contains("watermark: 5m -> 15m"));
    assertEquals(2, same.exitCode());

    PlanDiff bumped = diff(before, manifest(longer, windowed + "    generation: 2\n", SQL));
    assertThat("a new generation was declared", bumped.generationRequired(), empty());
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(bumped, "aggregate"));
  }

  @Test
  void aClockEditWithNoKeyedStateBelowStaysCompatible() throws Exception {
    PlanManifest before = manifest(ORDERS + CLOCK, UPSERT, SQL);
    PlanManifest after = manifest(ORDERS + CLOCK + "    late_events: keep\n", UPSERT, SQL);
    // the running plan had no keyed node: drop the aggregate from both manifests
    var b = (com.fasterxml.jackson.databind.node.ObjectNode) before.toTree();
    var a = (com.fasterxml.jackson.databind.node.ObjectNode) after.toTree();
    ((com.fasterxml.jackson.databind.node.ArrayNode) b.get("nodes")).remove(1);
    ((com.fasterxml.jackson.databind.node.ArrayNode) a.get("nodes")).remove(1);
    PlanDiff d = PlanDiff.between(b, a);
    assertEquals(Classification.COMPATIBLE, d.overall());
    assertThat(reasons(d, "source:orders"), containsString("definition.late_events: drop -> keep"));
    assertThat("late classification is not topology", d.generationRequired(), empty());
    assertEquals(0, d.exitCode());
  }

  @Test
  void keepingLateEventsMigratesTheStateBelowButNeedsNoGeneration() throws Exception {
    PlanDiff d =
        diff(
            manifest(ORDERS + CLOCK, UPSERT, SQL),
            manifest(ORDERS + CLOCK + "    late_events: keep\n", UPSERT, SQL));
    assertEquals(Classification.COMPATIBLE, of(d, "source:orders"));
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(d, "aggregate"));
    assertThat(d.generationRequired(), empty());
  }

  @Test
  void aWindowOrLatenessEditMigratesStateAndNeedsAGeneration() throws Exception {
    String base = "models:\n  customer_metrics:\n    key: [customer_id]\n";
    PlanManifest before = manifest(ORDERS + CLOCK, base + "    window: 1h\n", SQL);
    PlanDiff window = diff(before, manifest(ORDERS + CLOCK, base + "    window: 2h\n", SQL));
    assertEquals(Classification.SAFE, of(window, "source:orders"));
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(window, "aggregate"));
    assertThat(
        reasons(window, "aggregate"), containsString("state.window: tumbling 1h -> tumbling 2h"));
    assertThat(window.generationRequired(), contains("window: tumbling 1h -> tumbling 2h"));

    PlanDiff lateness =
        diff(
            before,
            manifest(ORDERS + CLOCK, base + "    window: 1h\n    allowed_lateness: 1d\n", SQL));
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(lateness, "aggregate"));
    assertThat(lateness.generationRequired(), contains("allowed_lateness: 0s -> 24h"));
  }

  private static final String ONE_DAY_SOURCE =
      "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    partitions: 3\n"
          + "    schema:\n      customer_id: int64\n      amount: decimal(12,2)\n"
          + "      ordered_at: timestamp\n    event_time: ordered_at\n    watermark: 1d\n"
          + "    idle_after: 1d\n";
  private static final String ONE_DAY_WINDOWED =
      "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 24h\n"
          + "    allowed_lateness: 1d\n    early_results: every 1d\n";
  private static final String ONE_DAY_UPSERT =
      "models:\n  customer_metrics:\n    materialized: upsert\n    key: [customer_id]\n"
          + "    retention: 1d\n";

  /** A manifest {@code inspect-plan} printed before a fixed day was written {@code 24h}. */
  private static com.fasterxml.jackson.databind.JsonNode before24h(String which) throws Exception {
    try (var in = PlanDiffTest.class.getResourceAsStream("one-day-" + which + "-before-24h.json")) {
      var tree = new ObjectMapper().readTree(in);
      PlanDiff.requireManifest(tree);
      return tree;
    }
  }

  /**
   * ADR 0021: a fixed day is written {@code 24h}; builds before that wrote {@code 1d} in the
   * manifest (the resources were printed by such a build for these declarations, every duration of
   * them one day). The same declarations must still be SAFE against those manifests: durations are
   * compared by what they mean, not by how they are spelt, and so are the digests over them.
   */
  @Test
  void aManifestThatSpeltAFixedDay1dIsTheSameDeclarationAsOneThatSpellsIt24h() throws Exception {
    for (String[] c : new String[][] {{"windowed", ONE_DAY_WINDOWED}, {"upsert", ONE_DAY_UPSERT}}) {
      var running = before24h(c[0]);
      PlanDiff d = PlanDiff.between(running, manifest(ONE_DAY_SOURCE, c[1], SQL).toTree());
      assertEquals(Classification.SAFE, d.overall(), c[0] + ": " + d.nodes());
      assertThat(c[0], d.generationRequired(), empty());
      assertEquals(0, d.exitCode());
    }
    // a real change is still one, named by what moved only (idle_after stayed one day)
    PlanDiff longer =
        PlanDiff.between(
            before24h("windowed"),
            manifest(
                    ONE_DAY_SOURCE.replace("watermark: 1d", "watermark: 2d"), ONE_DAY_WINDOWED, SQL)
                .toTree());
    assertEquals(Classification.COMPATIBLE, of(longer, "source:orders"));
    assertThat(
        reasons(longer, "source:orders"),
        containsString("stateless node changed\ndefinition.watermark: 1d -> 2d\n"));
    assertThat(reasons(longer, "source:orders"), not(containsString("idle_after")));
    assertThat(longer.generationRequired(), contains("watermark: 1d -> 2d"));
    // and a fixed day is not a calendar day, however the old manifest spelt it
    PlanDiff calendar =
        PlanDiff.between(
            before24h("windowed"),
            manifest(ONE_DAY_SOURCE, ONE_DAY_WINDOWED.replace("24h", "1d"), SQL).toTree());
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(calendar, "aggregate"));
    assertThat(
        reasons(calendar, "aggregate"),
        containsString("state.window: tumbling 1d -> calendar day in UTC"));
    assertThat(reasons(calendar, "aggregate"), not(containsString("allowed_lateness")));
    assertThat(
        calendar.generationRequired(), contains("window: tumbling 1d -> calendar day in UTC"));
  }

  @Test
  void theIdentityZoneOfARecordedPolicyIsACalendarWindowsZoneOnly() throws Exception {
    String base = "models:\n  customer_metrics:\n    key: [customer_id]\n";
    Function<String, Optional<String>> zone =
        models -> {
          try {
            return PlanManifest.identityZone(
                manifest(ORDERS + CLOCK, base + models, SQL).toTree().at("/time_policy/policy"));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    assertEquals(
        Optional.of("Europe/Berlin"), zone.apply("    window: 1d\n    time_zone: Europe/Berlin\n"));
    assertEquals(Optional.of("UTC"), zone.apply("    window: 1w\n"));
    assertEquals(Optional.empty(), zone.apply("    window: 24h\n"));
    assertEquals(Optional.empty(), zone.apply("    window: 1h\n    time_zone: Asia/Tokyo\n"));
    assertEquals(Optional.empty(), zone.apply("    retention: 1h\n"));
  }

  @Test
  void aTimeZoneChangeOfACalendarWindowNeedsANewGeneration() throws Exception {
    String base = "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1d\n";
    PlanManifest berlin = manifest(ORDERS + CLOCK, base + "    time_zone: Europe/Berlin\n", SQL);
    PlanManifest kolkata = manifest(ORDERS + CLOCK, base + "    time_zone: Asia/Kolkata\n", SQL);
    PlanDiff d = diff(berlin, kolkata);
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(d, "aggregate"));
    assertThat(d.generationRequired(), hasItem("time_zone: Europe/Berlin -> Asia/Kolkata"));
    assertEquals(2, d.exitCode());
    PlanDiff bumped =
        diff(
            berlin,
            manifest(
                ORDERS + CLOCK, base + "    time_zone: Asia/Kolkata\n    generation: 2\n", SQL));
    assertThat("a new generation was declared", bumped.generationRequired(), empty());
    PlanDiff same =
        diff(berlin, manifest(ORDERS + CLOCK, base + "    time_zone: Europe/Berlin\n", SQL));
    assertThat(same.generationRequired(), empty());
    // writing out the default zone changes nothing
    PlanDiff utc =
        diff(
            manifest(ORDERS + CLOCK, base, SQL),
            manifest(ORDERS + CLOCK, base + "    time_zone: UTC\n", SQL));
    assertThat(utc.generationRequired(), empty());
    assertEquals(0, utc.exitCode());
  }

  @Test
  void aFilterEditIsCompatibleAndLeavesTheAggregateSafe() throws Exception {
    PlanDiff d =
        diff(
            manifest(ORDERS + CLOCK, UPSERT, FILTERED),
            manifest(ORDERS + CLOCK, UPSERT, FILTERED.replace("amount > 0", "amount >= 1")));
    assertEquals(Classification.COMPATIBLE, of(d, "filter"));
    assertThat(reasons(d, "filter"), containsString("stateless node changed"));
    assertEquals(Classification.SAFE, of(d, "aggregate"));
    assertEquals(0, d.exitCode());

    PlanDiff added =
        diff(manifest(ORDERS + CLOCK, UPSERT, SQL), manifest(ORDERS + CLOCK, UPSERT, FILTERED));
    assertEquals(Classification.COMPATIBLE, of(added, "filter"));
    assertThat(node(added, "filter").reasons(), contains("new stateless node"));
  }

  @Test
  void aKeyOrAccumulatorEditMigratesState() throws Exception {
    PlanDiff d =
        diff(
            manifest(ORDERS + CLOCK, UPSERT, SQL),
            manifest(
                ORDERS + CLOCK,
                UPSERT,
                "SELECT customer_id, SUM(amount) AS total_spend, COUNT(*) AS orders FROM"
                    + " source('orders') GROUP BY customer_id"));
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(d, "aggregate"));
    assertThat(
        reasons(d, "aggregate"),
        containsString(
            "state.accumulators: [sum(amount): decimal(38,2)] -> [sum(amount): decimal(38,2),"
                + " count(*): int64]"));
  }

  @Test
  void aPartitionCountIsWatermarkTopology() throws Exception {
    PlanManifest three = manifest(ORDERS + "    partitions: 3\n" + CLOCK, UPSERT, SQL);
    PlanDiff d = diff(three, manifest(ORDERS + "    partitions: 6\n" + CLOCK, UPSERT, SQL));
    assertEquals(Classification.COMPATIBLE, of(d, "source:orders"));
    assertEquals(Classification.STATE_MIGRATION_REQUIRED, of(d, "aggregate"));
    assertThat(d.generationRequired(), contains("source orders partitions: 3 -> 6"));
    PlanDiff bumped =
        diff(
            three,
            manifest(ORDERS + "    partitions: 6\n" + CLOCK, UPSERT + "    generation: 2\n", SQL));
    assertThat(bumped.generationRequired(), empty());
  }

  @Test
  void anotherTopicIsAnotherPartitionSet() throws Exception {
    // the same count of partitions, but not the same partitions: the running clock's W_p and the
    // source's offsets belong to the old topic (docs/decisions/0103)
    PlanManifest orders = manifest(ORDERS + CLOCK, UPSERT, SQL);
    PlanDiff d =
        diff(
            orders,
            manifest(ORDERS.replace("topic: orders", "topic: orders_v2") + CLOCK, UPSERT, SQL));
    assertEquals(Classification.COMPATIBLE, of(d, "source:orders"));
    assertThat(
        d.generationRequired(),
        contains("source orders topic: orders -> orders_v2 (another partition set)"));
    PlanDiff bumped =
        diff(
            orders,
            manifest(
                ORDERS.replace("topic: orders", "topic: orders_v2") + CLOCK,
                UPSERT + "    generation: 2\n",
                SQL));
    assertThat(bumped.generationRequired(), empty());
  }

  /**
   * Generation numbers go forward (docs/decisions/0115): a declaration whose generation is lower
   * than the running plan's is not a new generation — that generation was written before, and its
   * projections may still be in the ledger — so the plan does not deploy as is, and a topology
   * change under it still needs a generation after the running one.
   */
  @Test
  void aGenerationLowerThanTheRunningOneIsNotANewGeneration() throws Exception {
    String two = UPSERT + "    generation: 2\n";
    PlanManifest running = manifest(ORDERS + CLOCK, two, SQL);
    PlanDiff back = diff(running, manifest(ORDERS + CLOCK, UPSERT, SQL));
    assertEquals(2, back.runningGeneration());
    assertEquals(1, back.newGeneration());
    assertEquals(2, back.exitCode());
    PlanDiff backAndTopic =
        diff(
            running,
            manifest(ORDERS.replace("topic: orders", "topic: orders_v2") + CLOCK, UPSERT, SQL));
    assertThat(
        backAndTopic.generationRequired(),
        contains("source orders topic: orders -> orders_v2 (another partition set)"));
    // forward is fine
    assertEquals(
        0, diff(running, manifest(ORDERS + CLOCK, UPSERT + "    generation: 3\n", SQL)).exitCode());
  }

  @Test
  void aFileThatIsNotAManifestIsRefusedWithWhatIsWrong() throws Exception {
    ObjectMapper json = new ObjectMapper();
    var e =
        assertThrows(
            PlanDiff.NotAManifestException.class,
            () -> PlanDiff.requireManifest(json.readTree("{\"nodes\": []}")));
    assertThat(e.getMessage(), containsString("\"manifest\": \"streamform-plan/1\""));
    assertThrows(
        PlanDiff.NotAManifestException.class,
        () -> PlanDiff.requireManifest(json.readTree("[1, 2]")));
    assertThrows(
        PlanDiff.NotAManifestException.class,
        () ->
            PlanDiff.requireManifest(
                json.readTree("{\"manifest\": \"streamform-plan/1\", \"nodes\": [{\"id\": 3}]}")));
  }

  /** A manifest edited by hand: a field of the wrong type, or a node kind no plan has. */
  @Test
  void aManifestWithAWrongTypedFieldOrAnUnknownKindIsRefused() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String text = manifest(ORDERS + CLOCK, UPSERT, SQL).toJson();
    PlanDiff.requireManifest(json.readTree(text));
    java.util.function.Function<java.util.function.Consumer<ObjectNode>, String> refused =
        edit -> {
          try {
            ObjectNode tree = (ObjectNode) json.readTree(text);
            edit.accept(tree);
            return assertThrows(
                    PlanDiff.NotAManifestException.class, () -> PlanDiff.requireManifest(tree))
                .getMessage();
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };
    assertThat(
        refused.apply(t -> t.put("generation", "two")),
        containsString("\"generation\" is \"two\", not a whole number from 1"));
    assertThat(
        refused.apply(t -> ((ObjectNode) t.get("nodes").get(0)).put("kind", "Bogus")),
        containsString("node 1 (source:orders) has kind 'Bogus'"));
    assertThat(refused.apply(t -> t.put("model", 3)), containsString("\"model\""));
    assertThat(refused.apply(t -> t.putArray("nodes")), containsString("no nodes"));
    assertThat(
        refused.apply(t -> ((ObjectNode) t.get("nodes").get(0)).putNull("definition")),
        containsString("\"definition\""));
    assertThat(
        refused.apply(t -> ((ObjectNode) t.get("nodes").get(1)).remove("state")),
        containsString("\"state\""));
    assertThat(
        refused.apply(t -> t.putArray("time_policy").add(1)), containsString("\"time_policy\""));
  }

  /**
   * A manifest is the record of what runs: one edited by hand so that a field no longer hashes to
   * the digest stored beside it is refused, naming the node and the field (docs/decisions/0114).
   * Before, the values were compared only where digests differed, so an edited key or window with
   * its old digest read SAFE, and an edited watermark contradicted itself.
   */
  @Test
  void aManifestWhoseFieldsNoLongerMatchTheirDigestsIsRefused() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String text =
        manifest(
                ORDERS + CLOCK,
                "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1h\n",
                SQL)
            .toJson();
    PlanDiff.requireManifest(json.readTree(text)); // as written: accepted
    java.util.function.Function<java.util.function.Consumer<ObjectNode>, String> refused =
        edit -> {
          try {
            ObjectNode tree = (ObjectNode) json.readTree(text);
            edit.accept(tree);
            return assertThrows(
                    PlanDiff.NotAManifestException.class, () -> PlanDiff.requireManifest(tree))
                .getMessage();
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };
    java.util.function.Function<ObjectNode, ObjectNode> aggregate =
        t -> (ObjectNode) t.get("nodes").get(1);
    java.util.function.Function<ObjectNode, ObjectNode> source =
        t -> (ObjectNode) t.get("nodes").get(0);
    assertThat(
        refused.apply(
            t ->
                ((ObjectNode) aggregate.apply(t).get("state").get("fingerprint"))
                    .putArray("key")
                    .add("x")),
        containsString("node 2 (aggregate) has \"state\".\"fingerprint\" that does not match"));
    assertThat(
        refused.apply(
            t ->
                ((ObjectNode) aggregate.apply(t).get("state").get("fingerprint"))
                    .put("window", "tumbling 2h")),
        containsString("\"state\".\"fingerprint\""));
    assertThat(
        refused.apply(
            t -> ((ObjectNode) aggregate.apply(t).get("definition")).putArray("key").add("x")),
        containsString("node 2 (aggregate) has \"definition\" that does not match"));
    assertThat(
        refused.apply(
            t -> ((ObjectNode) source.apply(t).get("definition")).put("watermark", "10m")),
        containsString("node 1 (source:orders) has \"definition\" that does not match"));
    assertThat(
        refused.apply(t -> ((ObjectNode) source.apply(t).get("schema")).put("amount", "int64")),
        containsString("node 1 (source:orders) has \"schema\" that does not match"));
    assertThat(
        refused.apply(
            t ->
                ((ObjectNode) t.get("time_policy").get("policy").get("sources").get(0))
                    .put("topic", "x")),
        containsString("\"time_policy\".\"policy\" that does not match"));
    // the fix is named
    assertThat(
        refused.apply(t -> ((ObjectNode) source.apply(t).get("definition")).put("topic", "x")),
        containsString("write it again from the declarations the running job was started with:"));
    // the same content in another key order and layout (a tool re-indented it): still accepted
    ObjectNode reordered = (ObjectNode) json.readTree(text);
    ObjectNode definition = (ObjectNode) source.apply(reordered).get("definition");
    List<String> names = new java.util.ArrayList<>();
    definition.fieldNames().forEachRemaining(names::add);
    ObjectNode reversed = json.createObjectNode();
    for (int i = names.size() - 1; i >= 0; i--) {
      reversed.set(names.get(i), definition.get(names.get(i)));
    }
    source.apply(reordered).set("definition", reversed);
    PlanDiff.requireManifest(json.readTree(json.writeValueAsString(reordered)));
  }

  @Test
  void theSummaryOrdersNodesAsTheNewPlanThenRemovedOnes() throws Exception {
    PlanDiff d =
        diff(manifest(ORDERS + CLOCK, UPSERT, FILTERED), manifest(ORDERS + CLOCK, UPSERT, SQL));
    List<String> ids = d.nodes().stream().map(NodeChange::id).collect(Collectors.toList());
    assertThat(ids, contains("source:orders", "aggregate", "filter"));
    assertThat(node(d, "filter").reasons(), contains("removed stateless node"));
  }

  private static final String WINDOWED_WITH_EFFECTS =
      "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1h\n"
          + "    effects:\n      - type: reward\n        subject: customer_id\n"
          + "        when: \"total_spend >= 100\"\n"
          + "        provider: {kind: webhook, url: \"http://127.0.0.1:8099/effects\","
          + " idempotency: key, receipts: true}\n";

  /** A model's effect rules are in its manifest with their digest; a model without has none. */
  @Test
  void theManifestCarriesTheEffectRulesAndTheirDigest() throws Exception {
    var tree = manifest(ORDERS + CLOCK, WINDOWED_WITH_EFFECTS, SQL).toTree();
    var rule = tree.path("effects").path("rules").path(0);
    assertEquals("reward", rule.path("type").asText());
    assertEquals("customer_id", rule.path("subject").asText());
    assertEquals("total_spend >= 100", rule.path("when").asText());
    assertEquals("once", rule.path("mode").asText());
    assertEquals("key", rule.path("provider").path("idempotency").asText());
    assertEquals(64, tree.path("effects").path("digest").asText().length());
    String without = "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1h\n";
    assertThat(manifest(ORDERS + CLOCK, without, SQL).toJson(), not(containsString("effects")));
  }

  /**
   * A changed rule is a line of its own, COMPATIBLE (no state depends on it), with the change and
   * what happens to the effects of revisions already written (ADR 0149).
   */
  @Test
  void aChangedEffectRuleIsCompatibleAndShown() throws Exception {
    PlanDiff d =
        diff(
            manifest(ORDERS + CLOCK, WINDOWED_WITH_EFFECTS, SQL),
            manifest(
                ORDERS + CLOCK,
                WINDOWED_WITH_EFFECTS.replace("total_spend >= 100", "total_spend >= 50"),
                SQL));
    assertThat(
        d.nodes().stream().map(NodeChange::classification).distinct().toList(),
        contains(Classification.SAFE));
    assertThat(d.effects().isPresent(), equalTo(true));
    assertEquals(Classification.COMPATIBLE, d.effects().get().classification());
    assertThat(
        d.effects().get().reasons(),
        hasItem("effects[reward].when: total_spend >= 100 -> total_spend >= 50"));
    assertThat(
        String.join("\n", d.effects().get().reasons()),
        containsString("not evaluated again under the new rules until the canonical generation"));
    assertEquals(Classification.COMPATIBLE, d.overall());
    assertEquals(0, d.exitCode());
    // the same rules: no line
    PlanDiff same =
        diff(
            manifest(ORDERS + CLOCK, WINDOWED_WITH_EFFECTS, SQL),
            manifest(ORDERS + CLOCK, WINDOWED_WITH_EFFECTS, SQL));
    assertThat(same.effects().isPresent(), equalTo(false));
    assertEquals(Classification.SAFE, same.overall());
  }

  /** A manifest written before effect rules were recorded is read, and says so. */
  @Test
  void aManifestWithoutEffectRulesIsReadAsPredatingThem() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode older =
        (ObjectNode) json.readTree(manifest(ORDERS + CLOCK, WINDOWED_WITH_EFFECTS, SQL).toJson());
    older.remove("effects");
    PlanDiff.requireManifest(older);
    PlanDiff d =
        PlanDiff.between(older, manifest(ORDERS + CLOCK, WINDOWED_WITH_EFFECTS, SQL).toTree());
    assertThat(
        d.nodes().stream().map(NodeChange::classification).distinct().toList(),
        contains(Classification.SAFE));
    assertEquals(Classification.COMPATIBLE, d.effects().get().classification());
    assertThat(d.effects().get().reasons().get(0), containsString("predates effect rules"));
    assertEquals(0, d.exitCode());
  }

  /** A rule edited in a saved manifest under its old digest is refused, as any other field. */
  @Test
  void anEffectRuleEditedUnderItsDigestIsRefused() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode edited =
        (ObjectNode) json.readTree(manifest(ORDERS + CLOCK, WINDOWED_WITH_EFFECTS, SQL).toJson());
    ((ObjectNode) edited.get("effects").get("rules").get(0)).put("when", "total_spend >= 1");
    var e =
        assertThrows(
            PlanDiff.EditedManifestException.class, () -> PlanDiff.requireManifest(edited));
    assertThat(e.getMessage(), containsString("\"effects\".\"rules\" that does not match"));
  }

  /**
   * The top-level generation is in no digest; the policy's is: one that disagrees with the policy's
   * is a hand edit, refused as one (found by a read-only audit of plans: it was ignored, and the
   * policy's read).
   */
  @Test
  void aTopLevelGenerationThatDisagreesWithThePolicysIsRefused() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode edited =
        (ObjectNode)
            json.readTree(manifest(ORDERS + CLOCK, UPSERT + "    generation: 2\n", SQL).toJson());
    edited.put("generation", 3);
    var e =
        assertThrows(
            PlanDiff.EditedManifestException.class, () -> PlanDiff.requireManifest(edited));
    assertThat(
        e.getMessage(),
        containsString(
            "the manifest has \"generation\": 3 but \"time_policy\".\"policy\".\"generation\": 2"));
  }
}
