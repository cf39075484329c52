package dev.streamform.teststreams.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A double SUM of a key spread over two partitions (docs/semantics.md §6.26): the oracle adds the
 * events in log order, as the engine does (ADR 0001), so both interleavings of the same partition
 * logs give the engine's 1.0E16 (1.0 + 1.0E16 + 1.0 in log order); in delivery order one of them
 * gave 1.0000000000000002E16.
 */
class DoubleSumLogOrderTest {
  private static final String P0_FIRST =
      "  - event: { merchant_id: 1, amount: 1.0, ordered_at: \"2026-08-30T10:01:00Z\" }\n"
          + "    partition: 0\n";
  private static final String P0_SECOND =
      "  - event: { merchant_id: 1, amount: 1.0, ordered_at: \"2026-08-30T10:02:00Z\" }\n"
          + "    partition: 0\n";
  private static final String P1 =
      "  - event: { merchant_id: 1, amount: 1.0e16, ordered_at: \"2026-08-30T10:05:00Z\" }\n"
          + "    partition: 1\n";

  @Test
  void bothInterleavingsSumAsTheEngineDoes(@TempDir Path dir) throws Exception {
    Files.writeString(
        dir.resolve("streamform.yml"),
        "models:\n  hourly:\n    key: [merchant_id]\n    window: 1h\n");
    Files.writeString(
        dir.resolve("sources.yml"),
        "sources:\n"
            + "  orders:\n"
            + "    connector: kafka\n"
            + "    topic: orders\n"
            + "    format: json\n"
            + "    schema:\n"
            + "      merchant_id: int64\n"
            + "      amount: double\n"
            + "      ordered_at: timestamp\n"
            + "    event_time: ordered_at\n"
            + "    watermark: 0s\n");
    Files.createDirectories(dir.resolve("models"));
    Files.writeString(
        dir.resolve("models/hourly.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue\n"
            + "FROM source('orders')\n"
            + "GROUP BY merchant_id\n");
    Files.createDirectories(dir.resolve("fixtures"));
    Files.writeString(
        dir.resolve("fixtures/p1_first.yml"),
        "model: hourly\ngiven:\n" + P1 + P0_FIRST + P0_SECOND + "expect: []\n");
    Files.writeString(
        dir.resolve("fixtures/p0_first.yml"),
        "model: hourly\ngiven:\n" + P0_FIRST + P0_SECOND + P1 + "expect: []\n");
    Project project = Project.load(dir);
    WindowedOracle oracle = WindowedOracle.of(DeclaredModel.of(project, "hourly"));
    for (String name : List.of("p1_first", "p0_first")) {
      WindowedOutcome out =
          oracle.run(Fixture.load(project, dir.resolve("fixtures/" + name + ".yml")));
      assertEquals(
          List.of("on_time 1.0E16", "final 1.0E16"),
          out.rows().stream()
              .map(r -> r.status().yamlName() + " " + r.values().get("revenue"))
              .toList(),
          name);
    }
  }
}
