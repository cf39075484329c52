package dev.streamform.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The launcher ({@code ./streamform}) builds the command line on a fresh machine, where the local
 * Maven repository holds no Streamform artifact yet: every module its build selects may depend only
 * on modules that build selects too (or one it resolves from the local repository fails, offline
 * and online alike). The README's first command is this launcher's first call.
 */
class LauncherBuildTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
  private static final Pattern ARTIFACT =
      Pattern.compile("<artifactId>(streamform-[^<]+)</artifactId>");
  private static final Pattern BUILD =
      Pattern.compile("mvn -B -q (?:-o )?install -DskipTests -pl '?([^' )]+)'?( -am)?");

  @Test
  void theLaunchersBuildSelectsEveryStreamformModuleItsModulesNeed() throws IOException {
    Map<String, String> modules = reactor(); // artifactId -> module folder
    Map<String, Set<String>> needs = new LinkedHashMap<>();
    for (Map.Entry<String, String> m : modules.entrySet()) {
      needs.put(m.getKey(), streamformArtifacts(ROOT.resolve(m.getValue()).resolve("pom.xml")));
    }
    String launcher = Files.readString(ROOT.resolve("streamform"));
    Matcher build = BUILD.matcher(launcher);
    List<String> missing = new ArrayList<>();
    int builds = 0;
    while (build.find()) {
      builds++;
      Set<String> built = selected(build.group(1), build.group(2) != null, modules, needs);
      for (String artifact : built) {
        for (String need : needs.get(artifact)) {
          if (!built.contains(need)) {
            missing.add(build.group() + ": " + artifact + " needs " + need + ", not built");
          }
        }
      }
    }
    assertEquals(2, builds, "the launcher's two builds (offline, then online) were not found");
    assertTrue(missing.isEmpty(), String.join("\n", new TreeSet<>(missing)));
  }

  /** The artifacts a {@code -pl} selection (with {@code -am}: and what they need) builds. */
  private static Set<String> selected(
      String projects,
      boolean alsoMake,
      Map<String, String> modules,
      Map<String, Set<String>> needs) {
    Map<String, String> byFolder = new LinkedHashMap<>();
    modules.forEach((artifact, folder) -> byFolder.put(folder, artifact));
    Set<String> built = new LinkedHashSet<>();
    boolean excluding = projects.startsWith("!");
    if (excluding) {
      built.addAll(modules.keySet());
    }
    for (String p : projects.split(",")) {
      String folder = p.replace("!", "");
      String artifact = byFolder.get(folder);
      assertTrue(artifact != null, "-pl names " + folder + ", not a module of the reactor");
      if (excluding) {
        built.remove(artifact);
      } else {
        built.add(artifact);
      }
    }
    if (alsoMake) {
      Deque<String> todo = new ArrayDeque<>(built);
      while (!todo.isEmpty()) {
        for (String need : needs.getOrDefault(todo.pop(), Set.of())) {
          if (built.add(need)) {
            todo.push(need);
          }
        }
      }
    }
    return built;
  }

  /** Every module of the reactor (and the parent itself), by artifactId. */
  private static Map<String, String> reactor() throws IOException {
    Map<String, String> modules = new LinkedHashMap<>();
    modules.put(ownArtifact(ROOT.resolve("pom.xml")), ".");
    Matcher m = MODULE.matcher(Files.readString(ROOT.resolve("pom.xml")));
    while (m.find()) {
      modules.put(ownArtifact(ROOT.resolve(m.group(1)).resolve("pom.xml")), m.group(1));
    }
    return modules;
  }

  private static String ownArtifact(Path pom) throws IOException {
    String text = Files.readString(pom);
    String withoutParent = text.replaceFirst("(?s)<parent>.*?</parent>", "");
    Matcher m = ARTIFACT.matcher(withoutParent);
    assertTrue(m.find(), pom + " has no streamform artifactId");
    return m.group(1);
  }

  /** The Streamform artifacts a pom names: its parent and its dependencies of any scope. */
  private static Set<String> streamformArtifacts(Path pom) throws IOException {
    String text = Files.readString(pom);
    String own = ownArtifact(pom);
    Set<String> named = new LinkedHashSet<>();
    Matcher m = ARTIFACT.matcher(text.replaceAll("(?s)<!--.*?-->", ""));
    while (m.find()) {
      if (!m.group(1).equals(own)) {
        named.add(m.group(1));
      }
    }
    return named;
  }
}
