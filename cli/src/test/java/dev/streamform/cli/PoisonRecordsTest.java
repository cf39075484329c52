package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28: a record that cannot be decoded or typed is a quarantine row naming the column, at
 * bounded cost, and never stops {@code streamform run}; in a fixture it is a problem naming the
 * fixture file, the line and the column, not a stack trace.
 */
class PoisonRecordsTest {
  private static final Path EXAMPLE = Path.of("../examples/orders-on-file");
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /** {@code streamform run} of the project's customer_metrics to {@code output}; its status. */
  private int runCustomerMetrics(Path project, Path output) {
    return run(
        "run", project.toString(), "--model", "customer_metrics", "--output", output.toString());
  }

  private static String order(int customer, String amount, String at) {
    return "{\"customer_id\": "
        + customer
        + ", \"merchant_id\": 7, \"amount\": "
        + amount
        + ", \"ordered_at\": \"2026-08-30T10:"
        + at
        + ":00Z\"}";
  }

  /** The poison lines, each with what its quarantine reason must say (its column, its key). */
  private static final String[][] POISON = {
    {
      order(1, "1e900000000", "01"),
      "column `amount`: '1e900000000' has too many digits for decimal(12,2)"
    },
    {
      order(1, "1e500000000", "02"),
      "column `amount`: '1e500000000' has too many digits for decimal(12,2)"
    },
    {
      "{\"customer_id\": 1e900000000, \"amount\": 1, \"ordered_at\": \"2026-08-30T10:03:00Z\"}",
      "column `customer_id`: '1e900000000' is out of the int64 range"
    },
    {"this line is not JSON", "not JSON: Unrecognized token 'this'"},
    {
      "{\"customer_id\": 1, \"amount\": 3.00, \"amount\": 300.00, \"ordered_at\":"
          + " \"2026-08-30T10:04:00Z\"}",
      "key `amount` is repeated in the JSON object"
    },
    {
      order(1, "9".repeat(2000), "05"),
      "column `amount`: not JSON: Number value length (2000) exceeds"
    },
    {
      "{\"customer_id\": 1, \"note\": \"" + "x".repeat(5_000_000) + "\"}",
      "the line is 5,000,030 bytes long, more than the limit of 4,194,304"
    },
    // a line of only a byte-order mark, and a line cut short: the reason says what is wrong with
    // the record, in plain words (not "Invalid UTF-8 start byte", not the last column's problem)
    {"\uFEFF", "not a JSON object: empty (a byte-order mark, EF BB BF, and nothing after it)"},
    {
      "{\"customer_id\": 1, \"amount\": 1,",
      "not JSON: the record ends after character 31, before its closing }"
    },
  };

  @Test
  void aFileRunQuarantinesPoisonLinesNamingTheColumnAndKeepsGoing() throws Exception {
    Path project = project();
    List<String> lines = new ArrayList<>();
    lines.add(order(1, "10.00", "00"));
    for (String[] p : POISON) {
      lines.add(p[0]);
    }
    lines.add(order(2, "5.00", "06"));
    lines.add(order(1, "2.50", "07"));
    Files.write(project.resolve("orders.jsonl"), lines);

    Path output = dir.resolve("out");
    long start = System.nanoTime();
    int status = runCustomerMetrics(project, output);
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf(
        "poison file run: %d lines, %d poison, exit %d, %d ms%n",
        lines.size(), POISON.length, status, millis);
    assertThat(err.toString(), status, is(0));
    assertThat(err.toString(), not(containsString("Exception")));
    assertThat(
        out.toString(),
        containsString(
            lines.size()
                + " lines read: 3 events processed, 0 late, "
                + POISON.length
                + " quarantined\n"));
    // bounded: 1e500000000 alone took minutes before (scaled to a 500-million-digit number)
    assertThat(millis, lessThan(120_000L));

    List<JsonNode> quarantined = rows(output.resolve("customer_metrics.quarantine.jsonl"));
    assertThat(quarantined.size(), is(POISON.length));
    for (int i = 0; i < POISON.length; i++) {
      JsonNode q = quarantined.get(i);
      assertThat(q.get("file").asText(), is("orders.jsonl"));
      assertThat(q.get("line").asInt(), is(i + 2));
      assertThat(q.get("reason").asText(), containsString(POISON[i][1]));
    }
    // the long line is kept cut, so a quarantine row stays small
    assertThat(quarantined.get(6).get("value").asText().length(), is(1000));
    List<String> changelog = new ArrayList<>();
    for (JsonNode r : rows(output.resolve("customer_metrics.jsonl"))) {
      changelog.add(
          r.get("customer_id")
              + "="
              + r.get("total_spend").decimalValue().stripTrailingZeros().toPlainString());
    }
    // the repeated-key line (3.00 or 300.00?) changed nothing: 10.00 + 2.50
    assertThat(changelog, is(List.of("1=10", "2=5", "1=12.5")));
  }

  /**
   * A line that is not UTF-8 (a file saved in Latin-1, a stray byte) is that line's problem: it is
   * quarantined with the byte and its place, its bytes kept, and the lines after it are read.
   */
  @Test
  void aLineThatIsNotUtf8IsQuarantinedAndTheLinesAfterItAreRead() throws Exception {
    Path project = project();
    java.io.ByteArrayOutputStream file = new java.io.ByteArrayOutputStream();
    file.writeBytes((order(1, "10.00", "00") + "\n").getBytes(StandardCharsets.UTF_8));
    // "Müller" in Latin-1: 0xFC where UTF-8 needs a two-byte sequence
    byte[] latin1 =
        ("{\"customer_id\": 3, \"amount\": 1.00, \"ordered_at\": \"2026-08-30T10:01:00Z\","
                + " \"note\": \"M\u00fcller\"}\n")
            .getBytes(StandardCharsets.ISO_8859_1);
    file.writeBytes(latin1);
    file.write(new byte[] {(byte) 0xFF, (byte) 0xFE, '{', '}', '\n'});
    // valid UTF-8 beyond ASCII is read as it is
    file.writeBytes(
        ("{\"customer_id\": 2, \"merchant_id\": 7, \"amount\": 5.00, \"ordered_at\":"
                + " \"2026-08-30T10:06:00Z\", \"note\": \"M\u00fcller \u20ac\"}\n")
            .getBytes(StandardCharsets.UTF_8));
    file.writeBytes((order(1, "2.50", "07") + "\n").getBytes(StandardCharsets.UTF_8));
    Files.write(project.resolve("orders.jsonl"), file.toByteArray());

    Path output = dir.resolve("out");
    int status = runCustomerMetrics(project, output);
    assertThat(err.toString(), status, is(0));
    assertThat(
        out.toString(),
        containsString("5 lines read: 3 events processed, 0 late, 2 quarantined\n"));
    List<JsonNode> quarantined = rows(output.resolve("customer_metrics.quarantine.jsonl"));
    assertThat(quarantined.size(), is(2));
    int at = new String(latin1, StandardCharsets.ISO_8859_1).indexOf('\u00fc') + 1;
    assertThat(quarantined.get(0).get("line").asInt(), is(2));
    assertThat(
        quarantined.get(0).get("reason").asText(),
        containsString("not UTF-8 text: byte " + at + " of the record is 0xFC"));
    assertThat(
        java.util.Base64.getDecoder().decode(quarantined.get(0).get("value_base64").asText()),
        is(java.util.Arrays.copyOf(latin1, latin1.length - 1)));
    assertThat(quarantined.get(1).get("line").asInt(), is(3));
    assertThat(
        quarantined.get(1).get("reason").asText(),
        containsString("not UTF-8 text: byte 1 of the record is 0xFF"));
    assertThat(rows(output.resolve("customer_metrics.jsonl")).size(), is(3));
  }

  /** A fixture event with a poison value is a problem naming the file, line and column. */
  @Test
  void aFixtureWithAPoisonValueNamesFileLineAndColumn() throws Exception {
    Path project = project();
    Files.writeString(
        project.resolve("fixtures/poison.yml"),
        String.join(
            "\n",
            "model: customer_metrics",
            "given:",
            "  - event: { customer_id: 42, merchant_id: 7, amount: 10.00, ordered_at:"
                + " \"2026-08-30T10:00:00Z\" }",
            "  - event: { customer_id: 42, merchant_id: 7, amount: 1e900000000, ordered_at:"
                + " \"2026-08-30T10:01:00Z\" }",
            "  - event: { customer_id: 1e900000000, merchant_id: 7, amount: 1, ordered_at:"
                + " \"2026-08-30T10:01:00Z\" }",
            "expect:",
            "  - { op: insert, customer_id: 42, total_spend: 10 }",
            ""));
    for (String command : new String[] {"check", "test"}) {
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      long start = System.nanoTime();
      int status = run(command, project.toString());
      long millis = (System.nanoTime() - start) / 1_000_000;
      String said = out + "" + err;
      System.out.printf("poison fixture, streamform %s: exit %d, %d ms%n", command, status, millis);
      assertThat(said, status, is(1));
      assertThat(said, not(containsString("Exception")));
      assertThat(
          said,
          containsString(
              "fixtures/poison.yml:4: event 2, key 'amount': '1e900000000'"
                  + " has too many digits for decimal(12,2)"));
      assertThat(
          said,
          containsString(
              "fixtures/poison.yml:5: event 3, key 'customer_id': '1e900000000'"
                  + " is out of the int64 range"));
      assertThat(millis, lessThan(60_000L));
    }
  }

  /** A repeated key in a fixture's event is refused with both lines, not "the last one wins". */
  @Test
  void aFixtureEventWithARepeatedKeyIsRefused() throws Exception {
    Path project = project();
    Files.writeString(
        project.resolve("fixtures/repeated.yml"),
        String.join(
            "\n",
            "model: customer_metrics",
            "given:",
            "  - event: { customer_id: 42, merchant_id: 7, amount: 10.00, amount: 99.00,"
                + " ordered_at: \"2026-08-30T10:00:00Z\" }",
            "expect:",
            "  - { op: insert, customer_id: 42, total_spend: 10 }",
            ""));
    int status = run("check", project.toString());
    String said = out + "" + err;
    assertThat(said, status, is(1));
    assertThat(said, containsString("fixtures/repeated.yml:3"));
    assertThat(said, containsString("is given twice"));
  }

  /** Names become paths: a topic of ../escape would write beside the output folder. */
  @Test
  void aTopicThatIsAPathIsRefusedAndNothingIsWrittenOutsideTheOutputFolder() throws Exception {
    Path project = project();
    Files.writeString(
        project.resolve("streamform.yml"),
        Files.readString(project.resolve("streamform.yml"))
            .replace("    retention: 10m\n", "    retention: 10m\n    late_topic: ../escape\n"));
    Path output = dir.resolve("out");
    int status = runCustomerMetrics(project, output);
    String said = out + "" + err;
    assertThat(said, Files.exists(dir.resolve("escape.jsonl")), is(false));
    assertThat(said, status, is(1));
    assertThat(
        said,
        containsString(
            "streamform.yml:6: model 'customer_metrics', key 'late_topic':"
                + " '../escape' is not a Kafka topic name"));
  }

  private Path project() throws Exception {
    Path project = dir.resolve("project");
    try (Stream<Path> all = Files.walk(EXAMPLE)) {
      for (Path from : (Iterable<Path>) all::iterator) {
        Path to = project.resolve(EXAMPLE.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else {
          Files.copy(from, to);
        }
      }
    }
    return project;
  }

  private static List<JsonNode> rows(Path file) throws Exception {
    List<JsonNode> rows = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      rows.add(JSON.readTree(line));
    }
    return rows;
  }
}
