package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic a model writes is read by no source and written by no other model, and one log is read by
 * one source (ADR 0146): each is refused at the later declaration, naming the first.
 */
class TopicCollisionsTest {
  @TempDir Path dir;

  private static final String SCHEMA =
      """
          schema: { customer_id: int64, amount: "decimal(12,2)", ordered_at: timestamp }
          event_time: ordered_at
      """;

  private static final String SUM =
      "SELECT customer_id, SUM(amount) AS s FROM source('orders') GROUP BY customer_id\n";

  /** Source orders on shop.orders (topic: on line 4), models a and b reading it. */
  private ProjectFolder twoModels(String models) {
    return ProjectFolder.seed(dir)
        .delete("models/customer_metrics.sql")
        .sources("sources:\n" + source("orders", "kafka", "shop.orders"))
        .models(models)
        .sql("a", SUM)
        .sql("b", SUM);
  }

  /** {@link #twoModels} without b: model a alone, reading source orders. */
  private ProjectFolder oneModel() {
    return twoModels("models:\n  a:\n    key: [customer_id]\n").delete("models/b.sql");
  }

  /**
   * A sources.yml of source orders and source {@code other}, both of {@code connector}, reading
   * {@code ordersReads} and {@code otherReads} on lines 4 and 9.
   */
  private static String twoSources(
      String connector, String ordersReads, String other, String otherReads) {
    return "sources:\n"
        + source("orders", connector, ordersReads)
        + source(other, connector, otherReads);
  }

  /** One source of sources.yml, reading {@code reads}: a topic for kafka, else a path. */
  private static String source(String name, String connector, String reads) {
    String key = connector.equals("kafka") ? "topic" : "path";
    return "  %s:\n    connector: %s\n    %s: %s\n".formatted(name, connector, key, reads) + SCHEMA;
  }

  /** The audit's project: b writes into the source's topic and into a's topics. */
  @Test
  void aModelWritingIntoASourcesOrAnotherModelsTopicIsRefused() {
    ProjectFolder project =
        twoModels(
            """
            models:
              a:
                key: [customer_id]
              b:
                key: [customer_id]
                topic: shop.orders
                late_topic: a
                quarantine_topic: a.quarantine
            """);
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:6: model 'b', key 'topic': writes its changelog to topic"
                + " 'shop.orders', which source 'orders' reads (sources.yml:4): its records would"
                + " be read as that source's events — name another topic, e.g. topic: b",
            "streamform.yml:7: model 'b', key 'late_topic': writes its late events to topic 'a',"
                + " where model 'a' writes its changelog (line 3, the default <model>): the two"
                + " would be mixed in one topic — name another topic, e.g. late_topic: b.late",
            "streamform.yml:8: model 'b', key 'quarantine_topic': writes its quarantined records"
                + " to topic 'a.quarantine', where model 'a' writes its quarantined records (line"
                + " 3, the default <model>.quarantine): the two would be mixed in one topic — name"
                + " another topic, e.g. quarantine_topic: b.quarantine"));
  }

  /**
   * A default name collides too: model orders's changelog would be the topic source orders reads.
   */
  @Test
  void aDefaultTopicThatASourceReadsIsRefusedAtTheModel() {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .delete("models/customer_metrics.sql")
            .models("models:\n  orders:\n    key: [customer_id]\n")
            .sql(
                "orders",
                "SELECT customer_id, SUM(amount) AS s FROM source('orders') GROUP BY"
                    + " customer_id\n");
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:3: model 'orders': writes its changelog to topic 'orders' (the"
                + " default <model>), which source 'orders' reads (sources.yml:4): its records"
                + " would be read as that source's events — name another topic with topic:"
                + " <topic>, or rename the model"));
  }

  /** The later model is refused, naming the explicit topic of the earlier one. */
  @Test
  void anExplicitTopicOfAnEarlierModelThatALaterModelsDefaultTakesIsRefusedAtTheLater() {
    ProjectFolder project =
        twoModels(
            """
            models:
              a:
                key: [customer_id]
                topic: b.late
              b:
                key: [customer_id]
            """);
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:6: model 'b': writes its late events to topic 'b.late' (the default"
                + " <model>.late), where model 'a' writes its changelog (line 4): the two would be"
                + " mixed in one topic — name another topic with late_topic: <topic>, or rename"
                + " the model"));
  }

  /** A model's own topics are apart too. */
  @Test
  void aModelsLateTopicThatIsItsOwnTopicIsRefused() {
    ProjectFolder project =
        twoModels(
            """
            models:
              a:
                key: [customer_id]
                topic: a.out
                late_topic: a.out
              b:
                key: [customer_id]
            """);
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:5: model 'a', key 'late_topic': writes its late events to topic"
                + " 'a.out', where it writes its changelog too (line 4): the two would be mixed in"
                + " one topic — name another topic, e.g. late_topic: a.late"));
  }

  /**
   * The duplicates topic is written only with event_id, the idle topic only with idle_after: a
   * source topic so named is refused once the model would write it, not before.
   */
  @Test
  void theDuplicatesAndIdleTopicsCountWhenTheSourceMakesTheModelWriteThem() throws Exception {
    String orders = "sources:\n" + source("orders", "kafka", "shop.orders");
    String second = source("other", "kafka", "a.duplicates") + source("idle", "kafka", "a.idle");
    ProjectFolder project = oneModel().sources(orders + second);
    assertThat(project.load().models().keySet(), contains("a"));

    project.sources(orders + "    event_id: customer_id\n    idle_after: 1m\n" + second);
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:3: model 'a': writes its duplicates to topic 'a.duplicates' (the"
                + " default <model>.duplicates), which source 'other' reads (sources.yml:11): its"
                + " records would be read as that source's events — rename the model, or read"
                + " another topic in source 'other'",
            "streamform.yml:3: model 'a': writes its idle markers to topic 'a.idle' (the default"
                + " <model>.idle), which source 'idle' reads (sources.yml:16): its records would be"
                + " read as that source's events — rename the model, or read another topic in"
                + " source 'idle'"));
  }

  /** A scoring model's defaults are <model>.decisions, .dead_letters and .reconcile. */
  @Test
  void aScoringModelsDefaultTopicsAreCompared() {
    ProjectFolder project =
        twoModels(
                """
                models:
                  a:
                    key: [customer_id]
                    decisions:
                      features_over: 1h
                      linear: models/a.linear.yml
                  b:
                    key: [customer_id]
                    topic: a.reconcile
                    late_topic: a.decisions
                    quarantine_topic: a.dead_letters
                """)
            .write("models/a.linear.yml", "bias: 0\nweights:\n  amount: 0.01\n");
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:9: model 'b', key 'topic': writes its changelog to topic"
                + " 'a.reconcile', where model 'a' writes its reconciled late events (line 3, the"
                + " default <model>.reconcile): the two would be mixed in one topic — name another"
                + " topic, e.g. topic: b",
            "streamform.yml:10: model 'b', key 'late_topic': writes its late events to topic"
                + " 'a.decisions', where model 'a' writes its decisions (line 3, the default"
                + " <model>.decisions): the two would be mixed in one topic — name another topic,"
                + " e.g. late_topic: b.late",
            "streamform.yml:11: model 'b', key 'quarantine_topic': writes its quarantined records"
                + " to topic 'a.dead_letters', where model 'a' writes its dead letters (line 3, the"
                + " default <model>.dead_letters): the two would be mixed in one topic — name"
                + " another topic, e.g. quarantine_topic: b.quarantine"));
  }

  /**
   * Kafka refuses to create a topic whose name equals another's once '.' and '_' are made one
   * ({@code Topic.hasCollision}): source orders.raw and b's orders_raw, a's default a.late and
   * model a_late's default changelog, are refused as one topic is (ADR 0146's amendment).
   */
  @Test
  void topicsThatDifferOnlyInDotsAndUnderscoresAreRefused() {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .delete("models/customer_metrics.sql")
            .sources("sources:\n" + source("orders", "kafka", "orders.raw"))
            .models(
                """
                models:
                  a:
                    key: [customer_id]
                  a_late:
                    key: [customer_id]
                  b:
                    key: [customer_id]
                    topic: orders_raw
                    late_topic: a_quarantine
                """)
            .sql("a", SUM)
            .sql("a_late", SUM)
            .sql("b", SUM);
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:5: model 'a_late': writes its changelog to topic 'a_late' (the"
                + " default <model>), which collides with topic 'a.late', where model 'a' writes"
                + " its late events (line 3, the default <model>.late): Kafka treats '.' and '_'"
                + " in topic names alike and will not hold both — name another topic with topic:"
                + " <topic>, or rename the model",
            "streamform.yml:8: model 'b', key 'topic': writes its changelog to topic"
                + " 'orders_raw', which collides with topic 'orders.raw', which source 'orders'"
                + " reads (sources.yml:4): Kafka treats '.' and '_' in topic names alike and will"
                + " not hold both — name another topic, e.g. topic: b",
            "streamform.yml:9: model 'b', key 'late_topic': writes its late events to topic"
                + " 'a_quarantine', which collides with topic 'a.quarantine', where model 'a'"
                + " writes its quarantined records (line 3, the default <model>.quarantine): Kafka"
                + " treats '.' and '_' in topic names alike and will not hold both — name another"
                + " topic, e.g. late_topic: b.late"));
  }

  /** Files are not Kafka topics: two file sources on orders.jsonl and orders_jsonl are apart. */
  @Test
  void filePathsThatDifferOnlyInDotsAndUnderscoresAreApart() throws Exception {
    ProjectFolder project =
        oneModel().sources(twoSources("file", "orders.jsonl", "payments", "orders_jsonl"));
    assertThat(project.load().sources().size(), is(2));
  }

  /** Two sources on one topic: two clocks over one log, refused at the later source. */
  @Test
  void twoSourcesReadingOneTopicAreRefusedAtTheLater() {
    ProjectFolder project =
        oneModel()
            .sources(
                twoSources("kafka", "shop.orders", "orders_again", "shop.orders")
                    + "    watermark: 1h\n");
    assertThat(
        project.problems(),
        contains(
            "sources.yml:9: source 'orders_again', key 'topic': reads topic 'shop.orders', as"
                + " source 'orders' does (line 4): one log would have two clocks, and what is"
                + " produced for one source would be the other's events too — read source('orders')"
                + " in every model of that topic, or name another topic (two clocks over one log"
                + " are two projects)"));
  }

  /**
   * Two sources on topics Kafka treats as one ('.' and '_' alike): Kafka holds only one of them, so
   * one source would read a topic that cannot exist beside the other's; refused at the later.
   */
  @Test
  void twoSourcesReadingTopicsKafkaTreatsAsOneAreRefusedAtTheLater() {
    ProjectFolder project =
        oneModel()
            .sources(
                twoSources("kafka", "shop.orders", "orders_again", "shop_orders")
                    + "    watermark: 1h\n");
    assertThat(
        project.problems(),
        contains(
            "sources.yml:9: source 'orders_again', key 'topic': reads topic 'shop_orders', which"
                + " collides with topic 'shop.orders' that source 'orders' reads (line 4): Kafka"
                + " treats '.' and '_' in topic names alike and will not hold both — name the"
                + " topic as it is in Kafka, or read source('orders') in every model of that"
                + " topic"));
  }

  /**
   * The fix a refusal suggests ({@code e.g. <key>: <default>}) is not a topic the project uses
   * already, exactly or as Kafka sees it.
   */
  @Test
  void theSuggestedTopicIsNoneTheProjectUsesAlready() {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .delete("models/customer_metrics.sql")
            .sources(twoSources("kafka", "orders.raw", "other", "m"))
            .models("models:\n  m:\n    key: [customer_id]\n    topic: orders_raw\n")
            .sql("m", SUM);
    assertThat(project.problems().size(), is(1));
    assertThat(project.problems().get(0), endsWith("will not hold both — name another topic"));
  }

  /** Two file sources on one file, however the path is spelt, refused at the later. */
  @Test
  void twoFileSourcesReadingOneFileAreRefusedAtTheLater() {
    ProjectFolder project =
        oneModel()
            .sources(twoSources("file", "orders.jsonl", "payments", "./data/../orders.jsonl"));
    assertThat(
        project.problems(),
        contains(
            "sources.yml:9: source 'payments', key 'path': reads orders.jsonl, as source 'orders'"
                + " does (line 4): one log would have two clocks, and what is written for one"
                + " source would be the other's events too — read source('orders') in every model"
                + " of that file, or name another file (two clocks over one log are two"
                + " projects)"));
  }

  /** Globs are compared as written: one that may match a file another source names is taken. */
  @Test
  void globsAreComparedAsWritten() throws Exception {
    ProjectFolder project =
        oneModel().sources(twoSources("file", "orders/*.jsonl", "payments", "orders/a.jsonl"));
    assertThat(project.load().sources().size(), is(2));
    project.sources(twoSources("file", "orders/*.jsonl", "payments", "orders/*.jsonl"));
    assertThat(
        project.problems(),
        hasItem(
            "sources.yml:9: source 'payments', key 'path': reads orders/*.jsonl, as source"
                + " 'orders' does (line 4): one log would have two clocks, and what is written for"
                + " one source would be the other's events too — read source('orders') in every"
                + " model of that file, or name another file (two clocks over one log are two"
                + " projects)"));
  }
}
