package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each rule of a source in {@code sources.yml}, and the message it gives. */
class SourceRulesTest {
  @TempDir Path dir;

  private ProjectFolder withSources(String sources) {
    return ProjectFolder.seed(dir).sources(sources);
  }

  /** The seed's source without its clock, followed by {@code extra} lines (from line 10). */
  private ProjectFolder processingTimeSourceWith(String extra) {
    return withSources(
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
        """
            + extra);
  }

  @Test
  void watermarkNeedsEventTime() {
    assertThat(
        processingTimeSourceWith("    watermark: 5m\n").problems(),
        hasItem(
            "sources.yml:10: source 'orders', key 'watermark': a watermark needs an event-time"
                + " column — add event_time: <timestamp column> or remove watermark"));
  }

  @Test
  void lateEventsNeedsEventTime() {
    assertThat(
        processingTimeSourceWith("    late_events: keep\n").problems(),
        hasItem(
            "sources.yml:10: source 'orders', key 'late_events': late_events needs an event-time"
                + " column; without one nothing is late — add event_time: <timestamp column> or"
                + " remove late_events"));
  }

  @Test
  void idleAfterNeedsEventTime() {
    assertThat(
        processingTimeSourceWith("    idle_after: 1m\n").problems(),
        hasItem(
            "sources.yml:10: source 'orders', key 'idle_after': idle_after needs an event-time"
                + " column; without one there is no watermark to hold back — add event_time:"
                + " <timestamp column> or remove idle_after"));
  }

  @Test
  void eventTimeMustBeAColumn() {
    assertThat(
        processingTimeSourceWith("    event_time: orderd_at\n").problems(),
        hasItem(
            "sources.yml:10: source 'orders', key 'event_time': 'orderd_at' is not a column of the"
                + " schema — did you mean 'ordered_at'? name a timestamp column: ordered_at"));
  }

  @Test
  void eventTimeMustBeATimestamp() {
    assertThat(
        processingTimeSourceWith("    event_time: amount\n").problems(),
        hasItem(
            "sources.yml:10: source 'orders', key 'event_time': 'amount' is a decimal(12,2) column,"
                + " not a timestamp — declare amount: timestamp in the schema, or name a timestamp"
                + " column: ordered_at"));
  }

  @Test
  void eventTimeWithNoTimestampColumnSaysToAddOne() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    connector: kafka
                    topic: orders
                    schema:
                      customer_id: int64
                      amount: decimal(12,2)
                    event_time: created
                """)
            .problems(),
        hasItem(
            "sources.yml:8: source 'orders', key 'event_time': 'created' is not a column of the"
                + " schema — add a column of type timestamp to the schema and name it here"));
  }

  @Test
  void badDuration() {
    assertThat(
        processingTimeSourceWith("    event_time: ordered_at\n    watermark: 5 minutes\n")
            .problems(),
        hasItem(
            "sources.yml:11: source 'orders', key 'watermark': bad duration: '5 minutes' is not a"
                + " duration; write a whole number and a unit, e.g. 500ms, 0s, 10s, 5m, 2h or 30d"
                + " — e.g. watermark: 5m"));
  }

  @Test
  void durationWithoutUnit() {
    assertThat(
        processingTimeSourceWith("    event_time: ordered_at\n    idle_after: 60\n").problems(),
        hasItem(
            "sources.yml:11: source 'orders', key 'idle_after': bad duration: '60' is not a"
                + " duration (a number needs a unit); write a whole number and a unit, e.g. 500ms,"
                + " 0s, 10s, 5m, 2h or 30d — e.g. idle_after: 1m"));
  }

  @Test
  void lateEventsIsDropOrKeep() {
    assertThat(
        processingTimeSourceWith("    event_time: ordered_at\n    late_events: discard\n")
            .problems(),
        hasItem(
            "sources.yml:11: source 'orders', key 'late_events': 'discard' is not one of drop, keep"
                + " — write late_events: drop or late_events: keep"));
  }

  @Test
  void lateEventsIsLowerCaseAsTheContractWritesIt() {
    // "a late_events value other than drop/keep" (SEMANTICS §1): Drop is such a value, as 5M is
    // not a duration (ADR 0083); the message says which word was meant
    assertThat(
        processingTimeSourceWith("    event_time: ordered_at\n    late_events: Drop\n").problems(),
        hasItem(
            "sources.yml:11: source 'orders', key 'late_events': 'Drop' is not one of drop, keep"
                + " (words are written in lower case: write drop)"
                + " — write late_events: drop or late_events: keep"));
    assertThat(
        processingTimeSourceWith("    event_time: ordered_at\n    late_events: KEEP\n").problems(),
        hasItem(
            "sources.yml:11: source 'orders', key 'late_events': 'KEEP' is not one of drop, keep"
                + " (words are written in lower case: write keep)"
                + " — write late_events: drop or late_events: keep"));
  }

  @Test
  void unknownKeySuggestsTheClosest() {
    assertThat(
        processingTimeSourceWith("    event_time: ordered_at\n    watermak: 5m\n").problems(),
        hasItem(
            "sources.yml:11: source 'orders', key 'watermak': unknown key — did you mean"
                + " 'watermark'? (known keys: connector, topic, path, format, schema, event_time,"
                + " max_out_of_orderness, watermark, late_events, idle_after, partitions, event_id,"
                + " duplicates_within, event_id_scope, kafka.properties)"));
  }

  @Test
  void partitionsIsAWholeNumberOnAKafkaSource() throws Exception {
    assertThat(
        processingTimeSourceWith("    partitions: three\n").problems(),
        hasItem(
            org.hamcrest.Matchers.startsWith(
                "sources.yml:10: source 'orders', key 'partitions':"
                    + " 'three' is not a partition count — write the topic's partition count")));
    assertThat(
        processingTimeSourceWith("    partitions: 0\n").problems(),
        hasItem(org.hamcrest.Matchers.containsString("'0' is not a partition count")));
    assertEquals(
        java.util.Optional.of(3),
        Project.load(processingTimeSourceWith("    partitions: 3\n").dir())
            .sources()
            .get("orders")
            .partitions());
  }

  @Test
  void unknownTopLevelKey() {
    assertThat(
        withSources(ProjectFolder.SOURCES + "source:\n  x: 1\n").problems(),
        hasItem(
            "sources.yml:13: key 'source': unknown key — did you mean 'sources'? (known keys:"
                + " sources)"));
  }

  @Test
  void aListWhereAStringIsExpected() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    connector: kafka
                    topic: [orders, more_orders]
                    schema:
                      ordered_at: timestamp
                """)
            .problems(),
        hasItem(
            "sources.yml:4: source 'orders', key 'topic': expected a single value, got a list"
                + " — write topic: orders"));
  }

  @Test
  void aStringWhereAMapIsExpected() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    connector: kafka
                    topic: orders
                    schema: ordered_at timestamp
                """)
            .problems(),
        hasItem(
            "sources.yml:5: source 'orders', key 'schema': expected a map, got 'ordered_at"
                + " timestamp' — write schema: with one column: type per line"));
  }

  @Test
  void connectorIsRequired() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    topic: orders
                    schema:
                      ordered_at: timestamp
                """)
            .problems(),
        hasItem(
            "sources.yml:3: source 'orders', key 'connector': required key is missing"
                + " — add connector: kafka (with topic:) or connector: file (with path:)"));
  }

  @Test
  void unknownConnector() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    connector: kinesis
                    topic: orders
                    schema:
                      ordered_at: timestamp
                """)
            .problems(),
        hasItem(
            "sources.yml:3: source 'orders', key 'connector': 'kinesis' is not one of kafka, file"
                + " — write connector: kafka or connector: file"));
  }

  @Test
  void kafkaNeedsATopic() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    connector: kafka
                    path: orders.jsonl
                    schema:
                      customer_id: int64
                      amount: decimal(12,2)
                """)
            .problems(),
        contains(
            "sources.yml:3: source 'orders', key 'topic': required key is missing"
                + " — a kafka source needs its topic: add topic: <kafka topic>",
            "sources.yml:4: source 'orders', key 'path': a kafka source reads a topic, not a file"
                + " — remove path, or use connector: file"));
  }

  @Test
  void fileNeedsAPath() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    connector: file
                    topic: orders
                    schema:
                      customer_id: int64
                      amount: decimal(12,2)
                """)
            .problems(),
        contains(
            "sources.yml:3: source 'orders', key 'path': required key is missing"
                + " — a file source needs its file: add path: <file of JSON lines>",
            "sources.yml:4: source 'orders', key 'topic': a file source reads a file, not a topic"
                + " — remove topic, or use connector: kafka"));
  }

  @Test
  void schemaIsRequired() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    connector: kafka
                    topic: orders
                """)
            .problems(),
        hasItem(
            "sources.yml:3: source 'orders', key 'schema': required key is missing — add schema:"
                + " with one column: type per line (int64, string, bool, double, decimal(p,s),"
                + " timestamp)"));
  }

  @Test
  void unknownColumnType() {
    assertThat(
        withSources(ProjectFolder.SOURCES.replace("int64", "integer")).problems(),
        hasItem(
            "sources.yml:7: source 'orders', key 'customer_id': column 'customer_id': unknown type"
                + " 'integer'; use one of int64, string, bool, double, decimal(p,s), timestamp"
                + " — fix the type of customer_id"));
  }

  /**
   * A precision or scale past int's range said Java's "For input string" (review of the SQL, 5).
   */
  @Test
  void aDecimalPrecisionOrScaleFarTooLargeSaysTheAllowedRange() {
    assertThat(
        withSources(ProjectFolder.SOURCES.replace("decimal(12,2)", "decimal(99999999999,2)"))
            .problems(),
        hasItem(
            "sources.yml:8: source 'orders', key 'amount': column 'amount': decimal precision must"
                + " be between 1 and 38, got 99999999999 — fix the type of amount"));
    assertThat(
        withSources(ProjectFolder.SOURCES.replace("decimal(12,2)", "decimal(12,99999999999)"))
            .problems(),
        hasItem(
            "sources.yml:8: source 'orders', key 'amount': column 'amount': decimal scale must be"
                + " between 0 and the precision (12), got 99999999999 — fix the type of amount"));
  }

  @Test
  void anUnquotedDecimalInAFlowMapIsOneProblemThatSaysQuoteIt() {
    // the comma of decimal(12,2) ends the flow map's entry: a type 'decimal(12' and a key '2)'
    String sources =
        """
        sources:
          orders:
            connector: kafka
            topic: orders
            format: json
            schema: { customer_id: int64, amount: decimal(12,2), ordered_at: timestamp }
            event_time: ordered_at
            watermark: 5m
            late_events: drop
        """;
    assertThat(
        withSources(sources).problems(),
        contains(
            "sources.yml:6: source 'orders', key 'amount': column 'amount': the comma in"
                + " decimal(12,2) splits the flow map { ... } into 'amount: decimal(12' and"
                + " a key '2)' — quote the type: amount: \"decimal(12,2)\""));
  }

  @Test
  void onlyJsonFormat() {
    assertThat(
        withSources(ProjectFolder.SOURCES.replace("format: json", "format: avro")).problems(),
        hasItem(
            "sources.yml:5: source 'orders', key 'format': unknown format 'avro'"
                + " — write format: json (the only format so far)"));
  }

  @Test
  void emptyValue() {
    assertThat(
        withSources(ProjectFolder.SOURCES.replace("topic: orders", "topic:")).problems(),
        hasItem("sources.yml:4: source 'orders', key 'topic': has no value — write topic: orders"));
  }

  @Test
  void keyGivenTwice() {
    assertThat(
        withSources(ProjectFolder.SOURCES + "    watermark: 1m\n").problems(),
        hasItem(
            "sources.yml:13: source 'orders', key 'watermark': is given twice (first on line 11)"
                + " — keep one of them"));
  }

  @Test
  void sourcesKeyIsRequired() {
    assertThat(
        withSources("orders:\n  connector: kafka\n").problems(),
        hasItem(
            "sources.yml:1: key 'sources': required key is missing"
                + " — start the file with sources: and one source per name"));
  }

  @Test
  void emptyFile() {
    assertThat(
        withSources("# nothing yet\n").problems(),
        hasItem("sources.yml: is empty — start it with sources: followed by one source per name"));
  }

  @Test
  void malformedYamlNamesTheLine() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    connector: kafka
                    topic: "orders
                    schema: {}
                """)
            .problems(),
        hasItem(
            "sources.yml:6: malformed YAML: while scanning a quoted scalar: found unexpected end of"
                + " stream — check the indentation and quoting on this line and the one before"));
  }

  @Test
  void badIndentation() {
    assertThat(
        withSources(
                """
                sources:
                  orders:
                    connector: kafka
                   topic: orders
                """)
            .problems(),
        hasItem(
            "sources.yml:4: malformed YAML: while parsing a block mapping: expected <block end>,"
                + " but found '<block mapping start>' — check the indentation and quoting on this"
                + " line and the one before"));
  }
}
