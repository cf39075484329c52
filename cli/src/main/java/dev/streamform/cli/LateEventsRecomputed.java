package dev.streamform.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamform.core.text.Counts;
import dev.streamform.pipelines.kafka.KafkaConnection;
import dev.streamform.pipelines.kafka.KafkaRefusedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * What became of a live run's too-late events in a shadow generation (docs/decisions/0048): each
 * row of the live run's late output names the event by its source position ({@code partition},
 * {@code offset}) and the window that refused it; the shadow replayed the same source, so the event
 * is in the shadow generation's revisions iff a revision of that window's projection has the offset
 * inside its range in that partition. Within one partition a window's revisions are cumulative in
 * offset order (ADR 0038), and a later offset of the same partition and window would have been too
 * late as well, so a range that reaches the offset includes the event.
 */
final class LateEventsRecomputed {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The counts, and the first row still outside every revision ({@code ""} when none). */
  record Result(int rows, int repeats, int included, String firstOutside) {
    int outside() {
      return rows - repeats - included;
    }
  }

  private LateEventsRecomputed() {}

  /** The late output's rows of {@code file}, one JSON object a line; none when it is absent. */
  static List<JsonNode> rows(Path file) throws IOException {
    List<JsonNode> rows = new ArrayList<>();
    if (!Files.exists(file)) {
      return rows;
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) {
        continue;
      }
      JsonNode row;
      try {
        row = JSON.readTree(lines.get(i));
      } catch (JsonProcessingException e) {
        row = null;
      }
      if (row == null || !row.isObject() || !row.has("offset") || !row.has("window_start")) {
        throw new IOException(
            file + ":" + (i + 1) + ": not a late row (a JSON object with offset and window_start)");
      }
      rows.add(row);
    }
    return rows;
  }

  /**
   * The late topic's rows up to the end offsets it has now (none when the topic does not exist):
   * what the live run refused so far; rows appended later are not waited for.
   */
  static List<JsonNode> rows(KafkaConnection kafka, String topic) throws IOException {
    List<JsonNode> rows = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = ConsumeCommand.consumer(kafka)) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, java.time.Duration.ofSeconds(20));
      if (infos == null || infos.isEmpty()) {
        return rows;
      }
      List<TopicPartition> partitions = new ArrayList<>();
      infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
      java.util.Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              "topic " + topic + ": not read to its end offsets " + end + " within 60 s");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(java.time.Duration.ofMillis(500))) {
          if (r.offset() >= end.get(new TopicPartition(topic, r.partition()))) {
            continue;
          }
          JsonNode row;
          try {
            row = JSON.readTree(r.value());
          } catch (JsonProcessingException e) {
            row = null;
          }
          if (row == null || !row.isObject() || !row.has("offset") || !row.has("window_start")) {
            throw new IOException(
                "topic "
                    + topic
                    + " partition "
                    + r.partition()
                    + " offset "
                    + r.offset()
                    + ": not a late row (a JSON object with offset and window_start)");
          }
          rows.add(row);
        }
      }
    } catch (KafkaException e) {
      throw KafkaRefusedException.of("read topic " + topic, kafka, e);
    }
    return rows;
  }

  /**
   * The line {@code run --shadow} (files) and {@code compare-generations --bootstrap-servers}
   * (Kafka) print: how many of the live run's too-late events, read from {@code where}, are in
   * generation {@code generation}'s revisions.
   */
  static String line(String where, Result r, int generation) {
    // counts grouped in thousands as the rest of run's summary (Counts)
    return "too-late events of the live run ("
        + where
        + ", "
        + Counts.grouped(r.rows(), "row")
        + (r.repeats() == 0
            ? ""
            : ", "
                + (r.repeats() == 1 ? "1 a repeat" : Counts.number(r.repeats()) + " repeats")
                + " of another's position, counted once")
        + "): "
        + Counts.number(r.included())
        + " in generation "
        + generation
        + "'s revisions, "
        + Counts.number(r.outside())
        + " still outside them"
        + (r.firstOutside().isEmpty() ? "" : " (first: " + r.firstOutside() + ")");
  }

  /** Checks each late row against generation {@code generation}'s revisions of its window. */
  static Result in(
      DataSource pool, String model, int generation, List<String> keyColumns, List<JsonNode> late)
      throws SQLException {
    int included = 0;
    int repeats = 0;
    String first = "";
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*) FROM streamform.correction_ledger r JOIN streamform.projection p"
                    + " USING (projection_id) WHERE p.model = ? AND p.generation = ?"
                    + " AND p.window_start = ? AND p.window_key = ?::jsonb"
                    + " AND (r.offsets -> ? ->> 'min')::bigint <= ?"
                    + " AND ? <= (r.offsets -> ? ->> 'max')::bigint")) {
      // one event (and window) per position: a row published again (a rerun on Kafka, an
      // at-least-once restart) is the same too-late event, as the gates count it (ADR 0037)
      java.util.Set<String> seen = new java.util.HashSet<>();
      for (JsonNode row : late) {
        if (!seen.add(
            row.path("partition").asText()
                + "/"
                + row.path("offset").asText()
                + "/"
                + row.path("window_start").asText())) {
          repeats++;
          continue;
        }
        ObjectNode key = JSON.createObjectNode();
        for (String column : keyColumns) {
          key.set(column, row.path("record").path(column));
        }
        String partition = row.path("partition").asText();
        long offset = row.path("offset").asLong();
        s.setString(1, model);
        s.setInt(2, generation);
        // as the column holds it (proleptic Gregorian; java.sql.Timestamp is Julian before 1582)
        s.setObject(
            3, Instant.parse(row.path("window_start").asText()).atOffset(java.time.ZoneOffset.UTC));
        s.setString(4, key.toString());
        s.setString(5, partition);
        s.setLong(6, offset);
        s.setLong(7, offset);
        s.setString(8, partition);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          if (rs.getLong(1) > 0) {
            included++;
          } else if (first.isEmpty()) {
            first =
                "partition "
                    + partition
                    + " offset "
                    + offset
                    + " "
                    + key
                    + " window "
                    + row.path("window_start").asText();
          }
        }
      }
    }
    return new Result(late.size(), repeats, included, first);
  }
}
