package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file run's output folder is one run's at a time (docs/decisions/0101): a run refuses a folder
 * another process is writing to, before the job and writing nothing; it removes the temporary parts
 * a stopped run left; it refuses, before the job, a folder it cannot write to; and a whole run
 * removes the mark of an interrupted one.
 */
class RunOutputFolderTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");

  /**
   * Another process that holds the output folder's lock as a run does (an OS lock on {@code
   * .streamform.lock}, which names it), until its standard input closes.
   */
  private static final String HOLDER =
      String.join(
          "\n",
          "import java.nio.ByteBuffer;",
          "import java.nio.channels.FileChannel;",
          "import java.nio.file.Path;",
          "import java.nio.file.StandardOpenOption;",
          "public class Hold {",
          "  public static void main(String[] a) throws Exception {",
          "    FileChannel c = FileChannel.open(Path.of(a[0]), StandardOpenOption.CREATE,",
          "        StandardOpenOption.READ, StandardOpenOption.WRITE);",
          "    c.lock();",
          "    c.truncate(0);",
          "    c.write(ByteBuffer.wrap((\"pid \" + ProcessHandle.current().pid()",
          "        + \" started 2026-12-04T22:00:00Z\\n\").getBytes()));",
          "    System.out.println(\"locked\");",
          "    System.out.flush();",
          "    System.in.read();",
          "  }",
          "}",
          "");

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /** A process holding {@code folder}'s lock, started and holding it. */
  private Process hold(Path folder) throws Exception {
    Files.createDirectories(folder);
    Path source = Files.writeString(dir.resolve("Hold.java"), HOLDER);
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p =
        new ProcessBuilder(java, source.toString(), folder.resolve(".streamform.lock").toString())
            .redirectErrorStream(true)
            .start();
    BufferedReader said =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    assertThat(said.readLine(), is("locked"));
    return p;
  }

  private static List<String> names(Path folder) throws Exception {
    try (Stream<Path> all = Files.list(folder)) {
      return all.map(f -> f.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  private Path project() throws Exception {
    Path copy = dir.resolve("project");
    try (Stream<Path> all = Files.walk(GETTING_STARTED)) {
      for (Path f : (Iterable<Path>) all::iterator) {
        Path to = copy.resolve(GETTING_STARTED.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else if (!GETTING_STARTED.relativize(f).startsWith("target")) {
          Files.copy(f, to);
        }
      }
    }
    return copy;
  }

  /**
   * Two runs into one folder: the second is refused before its job, naming the first, and writes
   * nothing, not even removing what looks like a stopped run's parts (they may be the first's).
   */
  @Test
  void aRunIntoAFolderAnotherRunIsWritingIsRefusedBeforeTheJobAndWritesNothing() throws Exception {
    Path folder = dir.resolve("out");
    Process other = hold(folder);
    Files.createDirectories(folder.resolve(".parts-7"));
    try {
      int status = run("run", GETTING_STARTED.toString(), "--output", folder.toString());

      assertThat(err.toString(), status, is(1));
      assertThat(
          err.toString(),
          containsString(
              "streamform run: another streamform run (pid "
                  + other.pid()
                  + ", started 2026-12-04T22:00:00Z) is writing to "
                  + folder
                  + ": wait for it to end, or name another --output\n"));
      assertThat(err.toString(), not(containsString("streamform run: model")));
      assertThat(names(folder), is(List.of(".parts-7", ".streamform.lock")));
    } finally {
      other.destroy();
      other.waitFor();
    }
  }

  /** The default folder, {@code <project>/target/<model>}, is locked as an --output is. */
  @Test
  void theDefaultFolderIsLockedToo() throws Exception {
    Path project = project();
    Path folder = project.resolve("target").resolve("hourly_revenue");
    Process other = hold(folder);
    try {
      int status = run("run", project.toString());

      assertThat(err.toString(), status, is(1));
      assertThat(
          err.toString(),
          containsString(
              "streamform run: another streamform run (pid "
                  + other.pid()
                  + ", started 2026-12-04T22:00:00Z) is writing to "
                  + folder
                  + ": wait for it to end, or name another --output\n"));
      assertThat(names(folder), is(List.of(".streamform.lock")));
    } finally {
      other.destroy();
      other.waitFor();
    }
  }

  /** A killed run's parts (SIGKILL leaves them): the next run removes them. */
  @Test
  void theNextRunRemovesTheTemporaryPartsAStoppedRunLeft() throws Exception {
    Path folder = dir.resolve("out");
    Path parts = Files.createDirectories(folder.resolve(".parts-123456"));
    Files.writeString(parts.resolve("records-0"), "{}\n");

    int status = run("run", GETTING_STARTED.toString(), "--output", folder.toString());

    assertThat(err.toString(), status, is(0));
    assertThat(names(folder).stream().anyMatch(n -> n.startsWith(".parts-")), is(false));
    assertThat(err.toString(), containsString(".parts-123456"));
  }

  /** A run that replaces the whole set removes the mark of an interrupted replacement. */
  @Test
  void aWholeRunRemovesTheMarkOfAnInterruptedOne() throws Exception {
    Path folder = Files.createDirectories(dir.resolve("out"));
    Files.writeString(
        folder.resolve(".streamform-incomplete"), "pid 1 started 2026-12-04T22:00:00Z\n");

    int status = run("run", GETTING_STARTED.toString(), "--output", folder.toString());

    assertThat(err.toString(), status, is(0));
    assertThat(Files.exists(folder.resolve(".streamform-incomplete")), is(false));
    assertThat(Files.size(folder.resolve("hourly_revenue.jsonl")) > 0, is(true));
  }

  /**
   * A folder the run cannot create its lock file in: refused before the job, naming the file and
   * the reason, exit 2. A folder at the lock file's path stops root too, which chmod does not.
   */
  @Test
  void anOutputWhoseLockFileCannotBeWrittenIsRefusedBeforeTheJob() throws Exception {
    Path folder = dir.resolve("out");
    Files.createDirectories(folder.resolve(".streamform.lock"));

    int status = run("run", GETTING_STARTED.toString(), "--output", folder.toString());

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--output "
                + folder
                + " cannot be written: "
                + folder.resolve(".streamform.lock")
                + ": is a folder, not a file: name another folder, or make it writable"));
    assertThat(err.toString(), not(containsString("streamform run: model")));
    assertThat(names(folder), is(List.of(".streamform.lock")));
  }

  /**
   * An output file that is the run's own input file (the model named after it, --output its
   * folder): refused before the job, naming both and the fix; the input is left as it was.
   */
  @Test
  void anOutputThatWouldReplaceTheRunsInputFileIsRefusedBeforeTheJob() throws Exception {
    Path project = project();
    Files.move(project.resolve("payments.jsonl"), project.resolve("hourly_revenue.jsonl"));
    Path sources = project.resolve("sources.yml");
    Files.writeString(
        sources,
        Files.readString(sources).replace("path: payments.jsonl", "path: hourly_revenue.jsonl"));
    byte[] before = Files.readAllBytes(project.resolve("hourly_revenue.jsonl"));

    int status = run("run", project.toString(), "--output", project.toString());

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--output "
                + project
                + " would replace the run's input file "
                + project.toAbsolutePath().normalize().resolve("hourly_revenue.jsonl")
                + " with its output hourly_revenue.jsonl: name another --output folder"));
    assertThat(err.toString(), not(containsString("streamform run: model")));
    assertThat(Files.readAllBytes(project.resolve("hourly_revenue.jsonl")), is(before));
  }

  /**
   * An earlier run's outputs of the model that this run does not write (a duplicates file from when
   * the source declared event_id, a decisions file from when it was a scoring model) are removed
   * and named; other files in the folder stay (ADR 0219).
   */
  @Test
  void aRerunRemovesTheModelsOutputsItDoesNotWriteAndSaysSo() throws Exception {
    Path folder = Files.createDirectories(dir.resolve("out"));
    Path duplicates = Files.writeString(folder.resolve("hourly_revenue.duplicates.jsonl"), "{}\n");
    Path decisions = Files.writeString(folder.resolve("hourly_revenue.decisions.jsonl"), "{}\n");
    Files.writeString(folder.resolve("notes.jsonl"), "{}\n");
    Files.writeString(folder.resolve("other.duplicates.jsonl"), "{}\n");

    int status = run("run", GETTING_STARTED.toString(), "--output", folder.toString());

    assertThat(err.toString(), status, is(0));
    assertThat(
        out.toString(),
        containsString(
            "removed "
                + duplicates.toAbsolutePath().normalize()
                + ", "
                + decisions.toAbsolutePath().normalize()
                + ": an earlier run's output, which this run does not write\n"));
    assertThat(
        names(folder),
        is(
            List.of(
                ".streamform.lock",
                "hourly_revenue.jsonl",
                "hourly_revenue.late.jsonl",
                "hourly_revenue.quarantine.jsonl",
                "notes.jsonl",
                "other.duplicates.jsonl")));
  }

  /** The audit's case: a folder that exists, which root may not write to. */
  @Test
  void anExistingFolderTheSystemWillNotLetTheRunWriteIsRefusedBeforeTheJob() throws Exception {
    Path sys = Path.of("/sys/kernel");
    assumeTrue(Files.isDirectory(sys), "a Linux /sys");
    assumeTrue(!Files.exists(sys.resolve(".streamform.lock")), "nothing at the lock's path");

    int status = run("run", GETTING_STARTED.toString(), "--output", sys.toString());

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString("--output /sys/kernel cannot be written: /sys/kernel/.streamform.lock: "));
    assertThat(err.toString(), not(containsString("streamform run: model")));
    assertThat(err.toString(), not(containsString(".parts-")));
  }
}
