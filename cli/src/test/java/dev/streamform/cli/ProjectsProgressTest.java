package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code test} over a folder of projects: the progress line's "projects done" counts a project when
 * its fixtures have run, not when it was queued. Small fixtures of several projects run together in
 * one pipeline at the end (FixtureSuite batches them), so a count taken as each project is queued
 * reached 2/3 before any fixture had run.
 */
class ProjectsProgressTest {
  private static final Path LATE_EVENT = Path.of("../test-streams/fixtures/time/late-event");
  private static final Pattern DONE = Pattern.compile("projects done (\\d+)/(\\d+)");

  @Test
  void projectsAreCountedDoneWhenTheirFixturesHaveRun(@TempDir Path dir) throws Exception {
    for (String name : List.of("p1", "p2", "p3")) {
      copy(LATE_EVENT, dir.resolve(name));
    }
    // one timeline of what happened: progress lines drawn and fixtures judged, in order
    List<String> happened = new ArrayList<>();
    Writer line =
        new Writer() {
          private final StringBuilder text = new StringBuilder();

          @Override
          public void write(char[] c, int off, int len) {
            text.append(c, off, len);
          }

          @Override
          public void flush() {
            String drawn = text.toString().replace("\r", "").trim();
            text.setLength(0);
            if (!drawn.isEmpty()) {
              happened.add("progress: " + drawn);
            }
          }

          @Override
          public void close() {}
        };
    Progress progress = Progress.to(new PrintWriter(line), 0);
    FixtureSuite suite =
        new FixtureSuite(FixtureRunner.on(RunnerChoice.direct()), null)
            .listening(progress.projects())
            .listening(
                new FixtureSuite.Listener() {
                  @Override
                  public void fixture(DeclaredModel model, FixtureVerdict verdict) {
                    happened.add("judged " + verdict.fixture().file());
                  }
                });
    suite.run(dir);

    int judged = 0;
    List<Integer> counts = new ArrayList<>();
    for (String h : happened) {
      if (h.startsWith("judged ")) {
        judged++;
        continue;
      }
      Matcher m = DONE.matcher(h);
      if (m.find()) {
        int done = Integer.parseInt(m.group(1));
        counts.add(done);
        // each project has one fixture: D projects done needs D fixtures judged
        assertThat(happened.toString(), done, lessThanOrEqualTo(judged));
      }
    }
    // and the count advances as they finish
    assertThat(happened.toString(), counts, hasItem(2));
  }

  private static void copy(Path from, Path to) throws Exception {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
  }
}
