package dev.streamform.teststreams.fuzz;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.FixtureKind;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.trace.TraceGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@code streamform fuzz} session: generates {@code N} traces from a seed, compares each on
 * every target with the oracle, prints progress, and for each target that disagrees shrinks the
 * smallest disagreeing trace and writes it as a fixture file (expectations from the oracle). A
 * trace agrees when it agrees on every target.
 */
public final class FuzzRun {
  private final DeclaredModel model;
  private final Fuzzer fuzzer;
  private final PrintWriter out;
  private Progress progress;
  private String project = "<project>";

  /**
   * Where the count of traces goes while a target runs, instead of a printed line per batch (a
   * status line on a terminal): {@link #traces} after each batch, {@link #end} before the session
   * prints again.
   */
  public interface Progress {
    void traces(String target, int done, int total, int disagreeing);

    void end();
  }

  /** What a session found. */
  public static final class Result {
    public final int traces;
    public final int agreeing;

    /** The fixture files written, one per target that disagreed. */
    public final List<Path> fixtures;

    Result(int traces, int agreeing, List<Path> fixtures) {
      this.traces = traces;
      this.agreeing = agreeing;
      this.fixtures = List.copyOf(fixtures);
    }

    public boolean allAgree() {
      return traces == agreeing;
    }
  }

  public FuzzRun(DeclaredModel model, Fuzzer fuzzer, PrintWriter out) {
    this.model = model;
    this.fuzzer = fuzzer;
    this.out = out;
  }

  /** This session, showing its progress on {@code progress} rather than printing it. */
  public FuzzRun withProgress(Progress progress) {
    this.progress = progress;
    return this;
  }

  /** This session of the project at {@code dir}, as the command to run it again names it. */
  public FuzzRun withProject(Path dir) {
    this.project = dir.toString();
    return this;
  }

  /**
   * Runs {@code traces} traces of {@code seed} on {@code targets}; shrunk fixtures go to {@code
   * dir}.
   */
  public Result run(int traces, long seed, List<Fuzzer.Target> targets, Path dir)
      throws IOException {
    TraceGenerator generator = TraceGenerator.forModel(model);
    List<Fixture> all = new ArrayList<>();
    int items = 0;
    for (int i = 0; i < traces; i++) {
      Fixture t = generator.generate(seed, i);
      items += t.given().size();
      all.add(t);
    }
    out.printf(
        "fuzz %s: %d traces (%d items), seed %d%n", model.model().name(), traces, items, seed);
    Map<String, Fixture> disagreeing = new LinkedHashMap<>();
    List<Path> written = new ArrayList<>();
    for (Fuzzer.Target target : targets) {
      long start = System.nanoTime();
      int[] done = {0, 0};
      List<Fuzzer.Verdict> verdicts =
          fuzzer.compare(
              all,
              target,
              batch -> {
                done[0] += batch.size();
                done[1] += (int) batch.stream().filter(Fuzzer.Verdict::agrees).count();
                if (progress != null) {
                  progress.traces(target.name(), done[0], traces, done[0] - done[1]);
                  return;
                }
                out.printf(
                    "%s: %d/%d traces run, %d agree (%.1fs)%n",
                    target.name(), done[0], traces, done[1], seconds(start));
                out.flush();
              });
      if (progress != null) {
        progress.end();
        out.printf(
            "%s: %d traces run, %d agree (%.1fs)%n",
            target.name(), traces, done[1], seconds(start));
      }
      Fuzzer.Verdict smallest = null;
      for (Fuzzer.Verdict v : verdicts) {
        if (!v.agrees()) {
          disagreeing.put(v.trace.name(), v.trace);
          if (smallest == null || v.trace.given().size() < smallest.trace.given().size()) {
            smallest = v;
          }
        }
      }
      if (smallest != null) {
        Path fixture = shrinkAndWrite(smallest.trace, all, target, seed, dir);
        if (fixture != null) {
          written.add(fixture);
        }
      }
    }
    int agreeing = traces - disagreeing.size();
    out.printf("%d/%d traces agree%n", agreeing, traces);
    out.flush();
    return new Result(traces, agreeing, written);
  }

  /**
   * Shrinks {@code trace} (one of {@code all}) and writes it as a fixture that disagrees run alone,
   * as a fixture runs; null, and said, when neither the shrunk nor the whole trace disagrees run
   * alone (the difference showed only in its batch, or only once): a fixture would pass.
   */
  private Path shrinkAndWrite(
      Fixture trace, List<Fixture> all, Fuzzer.Target target, long seed, Path dir)
      throws IOException {
    long start = System.nanoTime();
    out.printf(
        "%s: %s disagrees with the oracle; shrinking its %d items...%n",
        target.name(), trace.name(), trace.given().size());
    out.flush();
    Fixture small = fuzzer.shrink(trace, target);
    FixtureOutcome expected = fuzzer.expected(small);
    FixtureOutcome actual = target.run(small);
    if (expected.canonical().equals(actual.canonical())) {
      out.printf(
          "%s: the shrunk trace agrees when run alone; writing the whole trace instead%n",
          target.name());
      small = trace;
      expected = fuzzer.expected(small);
      actual = target.run(small);
      if (expected.canonical().equals(actual.canonical())) {
        int batch = fuzzer.batchSize();
        int first = all.indexOf(trace) / batch * batch;
        int last = Math.min(all.size(), first + batch) - 1;
        out.printf(
            "%s: the difference did not reproduce outside its batch: seed %d, --batch %d, %s"
                + " (its batch: %s) agrees when run alone, shrunk or whole; no fixture written."
                + " To see it again: streamform fuzz %s --model %s --traces %d --seed %d --batch"
                + " %d%n",
            target.name(),
            seed,
            batch,
            trace.name(),
            first == last
                ? all.get(first).name()
                : all.get(first).name() + " to " + all.get(last).name(),
            project,
            model.model().name(),
            all.size(),
            seed,
            batch);
        out.flush();
        return null;
      }
    }
    String name = "fuzz-" + model.model().name() + "-seed" + seed + "-" + trace.name();
    List<String> comments = new ArrayList<>();
    comments.add(
        "Found by `streamform fuzz` (seed "
            + seed
            + ", --batch "
            + fuzzer.batchSize()
            + ", "
            + trace.name()
            + ", shrunk from "
            + trace.given().size()
            + " to "
            + small.given().size()
            + " items): on "
            + target.name()
            + " the model disagrees with the reference oracle.");
    comments.add(
        "expect: and late: are the oracle's (docs/semantics.md "
            + FixtureKind.of(model).contractSections()
            + "); the runner gave:");
    for (String line : actual.canonical().split("\n")) {
      comments.add("  " + line);
    }
    Files.createDirectories(dir);
    Path file = dir.resolve(name + ".yml");
    Files.writeString(
        file,
        FixtureYaml.render(small, expected, comments, FixtureStream.compile(small, model)::itemOf),
        StandardCharsets.UTF_8);
    out.printf(
        "%s: shrunk %s to %d items (%.1fs); wrote %s%n",
        target.name(), trace.name(), small.given().size(), seconds(start), file);
    out.println(indent(diff(expected.canonical(), actual.canonical())));
    return file;
  }

  /** The oracle's and the target's outcomes, line by line, the first difference marked. */
  static String diff(String expected, String actual) {
    String[] e = expected.split("\n");
    String[] a = actual.split("\n");
    StringBuilder b = new StringBuilder("oracle | runner\n");
    boolean marked = false;
    for (int i = 0; i < Math.max(e.length, a.length); i++) {
      String l = i < e.length ? e[i] : "";
      String r = i < a.length ? a[i] : "";
      boolean differs = !l.equals(r);
      b.append(differs && !marked ? "> " : "  ").append(l).append(" | ").append(r).append('\n');
      marked |= differs;
    }
    return b.toString();
  }

  private static String indent(String text) {
    return ("  " + text.stripTrailing()).replace("\n", "\n  ");
  }

  private static double seconds(long start) {
    return (System.nanoTime() - start) / 1e9;
  }
}
