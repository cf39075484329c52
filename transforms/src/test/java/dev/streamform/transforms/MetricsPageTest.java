package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/metrics.md says it lists every metric the project declares: each name {@link
 * StreamformMetrics} declares has its row in the page's table ({@code | `name` | ...}), so a metric
 * added to the code without its row fails here (issue: {@code changelog_timers_set} had none).
 */
class MetricsPageTest {

  @Test
  void everyMetricOfStreamformMetricsHasItsRowOnThePage() throws IOException, Exception {
    Path page = Paths.get("docs/reference/metrics.md");
    Path file =
        Files.isRegularFile(Paths.get("..").resolve(page)) ? Paths.get("..").resolve(page) : page;
    String text = Files.readString(file);
    List<String> missing = new ArrayList<>();
    for (Field f : StreamformMetrics.class.getFields()) {
      if (!Modifier.isStatic(f.getModifiers())
          || f.getType() != String.class
          || f.getName().equals("NAMESPACE")) {
        continue;
      }
      String name = (String) f.get(null);
      if (!text.contains("\n| `" + name + "` |")) {
        missing.add(f.getName() + " = " + name);
      }
    }
    assertEquals(List.of(), missing, "metrics without a row in " + file);
  }

  /**
   * ScoreEvents' counters are public constants, named on the page where the page says where the
   * names are (it used to say ScoreEvents named them inline), and each has its row.
   */
  @Test
  void scoreEventsCountersAreItsPublicConstantsWithARowEach() throws Exception {
    Path page = Paths.get("docs/reference/metrics.md");
    Path file =
        Files.isRegularFile(Paths.get("..").resolve(page)) ? Paths.get("..").resolve(page) : page;
    String text = Files.readString(file);
    String intro = text.substring(0, text.indexOf("There is no Beam gauge"));
    List<String> missing = new ArrayList<>();
    for (Field f : dev.streamform.transforms.decisions.ScoreEvents.class.getFields()) {
      if (!Modifier.isStatic(f.getModifiers()) || f.getType() != String.class) {
        continue;
      }
      String name = (String) f.get(null);
      if (!text.contains("\n| `" + name + "` |")) {
        missing.add(f.getName() + " = " + name + " (no row)");
      }
      if (!intro.contains(f.getName())) {
        missing.add(f.getName() + " (not named where the page says where the names are)");
      }
    }
    assertEquals(List.of(), missing, "ScoreEvents' counters in " + file);
  }
}
