package dev.streamform.teststreams.fuzz;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Projects the fuzz tests run: the seed's, and new ones written on the spot. */
final class FuzzProjects {
  private FuzzProjects() {}

  /** A seed project of test-streams/fixtures/time, wherever Maven runs the tests from. */
  static Path seed(String name) {
    for (Path p :
        new Path[] {Paths.get("fixtures/time"), Paths.get("test-streams/fixtures/time")}) {
      if (Files.isDirectory(p.resolve(name))) {
        return p.resolve(name).toAbsolutePath();
      }
    }
    throw new IllegalStateException("fixtures/time/" + name + " not found");
  }

  /**
   * {@code traces} generated traces of {@code model} from {@code seed}, each run on the
   * DirectRunner and compared with the oracle (shrunk disagreements under {@code out}); the
   * result's {@code agreeing} counts those that agree, {@code log} says what differed.
   */
  static FuzzRun.Result onDirect(
      DeclaredModel model, int traces, long seed, Path out, java.io.StringWriter log)
      throws IOException {
    return new FuzzRun(model, Fuzzer.of(model, traces), new java.io.PrintWriter(log))
        .run(
            traces,
            seed,
            java.util.List.of(
                Fuzzer.Target.of(
                    dev.streamform.teststreams.fixture.FixtureRunner.on(
                        dev.streamform.teststreams.fixture.RunnerChoice.direct()),
                    model)),
            out);
  }

  static DeclaredModel model(Path project, String model) {
    try {
      return DeclaredModel.of(Project.load(project), model);
    } catch (InvalidProjectException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * A project unlike the seed's: sessions keyed by a string, double and int64 aggregates, COUNT,
   * MIN, MAX, AVG, a WHERE clause, decimal AVG, keep-late events and retention.
   */
  static Path sessions(Path dir) {
    write(
        dir,
        "sources.yml",
        String.join(
            "\n",
            "sources:",
            "  clicks:",
            "    connector: file",
            "    path: clicks.jsonl",
            "    schema:",
            "      user: string",
            "      region: string",
            "      dwell: double",
            "      clicks: int64",
            "      price: decimal(8,3)",
            "      at: timestamp",
            "    event_time: at",
            "    watermark: 30s",
            "    late_events: drop",
            ""));
    write(
        dir,
        "streamform.yml",
        String.join("\n", "models:", "  sessions:", "    key: [user]", "    retention: 2m", ""));
    write(
        dir,
        "models/sessions.sql",
        String.join(
            "\n",
            "SELECT user, COUNT(*) AS events, SUM(dwell) AS dwell, SUM(clicks) AS clicks,",
            "       MIN(dwell) AS shortest, MAX(clicks) AS most, AVG(dwell) AS avg_dwell,",
            "       AVG(clicks) AS avg_clicks, AVG(price) AS avg_price, COUNT(price) AS priced,",
            "       MAX(region) AS region",
            "FROM source('clicks')",
            "WHERE region <> 'test' AND clicks >= 0",
            "GROUP BY user",
            ""));
    return dir;
  }

  /**
   * The seed's orders with an id ({@code event_id: order_id}, {@code duplicates_within: 10m}), an
   * upsert model with retention or, {@code windowed}, tumbling quarter hours with 5m of allowed
   * lateness: the generator repeats some of its events (issue 16).
   */
  static Path ordersWithIds(Path dir, boolean windowed) {
    write(
        dir,
        "sources.yml",
        String.join(
            "\n",
            "sources:",
            "  orders:",
            "    connector: file",
            "    path: orders.jsonl",
            "    schema:",
            "      order_id: string",
            "      customer_id: int64",
            "      amount: decimal(12,2)",
            "      ordered_at: timestamp",
            "    event_time: ordered_at",
            "    watermark: 5m",
            "    event_id: order_id",
            "    duplicates_within: 10m",
            ""));
    write(
        dir,
        "streamform.yml",
        String.join(
            "\n",
            "models:",
            "  customer_metrics:",
            "    key: [customer_id]",
            windowed ? "    window: 15m\n    allowed_lateness: 5m" : "    retention: 10m",
            ""));
    write(
        dir,
        "models/customer_metrics.sql",
        "SELECT customer_id, SUM(amount) AS total_spend, COUNT(*) AS orders FROM source('orders')"
            + " GROUP BY customer_id\n");
    return dir;
  }

  static void write(Path dir, String relative, String text) {
    try {
      Path f = dir.resolve(relative);
      Files.createDirectories(f.getParent());
      Files.writeString(f, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
