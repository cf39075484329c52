package dev.streamform.policies.project;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/yaml.md lists every key the loader accepts, each in the first column of a table
 * row: a key added to the code and not to the reference fails here.
 */
class YamlReferenceTest {
  @Test
  void everyAcceptedKeyIsInTheReference() throws Exception {
    Path page = Paths.get("../docs/reference/yaml.md");
    String text =
        Files.readString(Files.isRegularFile(page) ? page : Paths.get("docs/reference/yaml.md"));
    Map<String, List<String>> accepted = new LinkedHashMap<>();
    accepted.put("sources.yml", SourcesFile.KEYS);
    accepted.put("streamform.yml (models)", ModelsFile.KEYS);
    accepted.put("streamform.yml (window)", ModelsFile.WINDOW_KEYS);
    accepted.put("streamform.yml (effects)", ModelsFile.EFFECT_KEYS);
    accepted.put("streamform.yml (providers)", ModelsFile.PROVIDER_KEYS);
    accepted.put("streamform.yml (provider credentials)", ModelsFile.PROVIDER_OPTIONAL_KEYS);
    accepted.put("streamform.yml (decisions)", ModelsFile.DECISIONS_KEYS);
    accepted.put("streamform.yml (gates)", GatesSection.KEYS);
    accepted.put("streamform.yml (top level)", java.util.List.of("models", "gates"));
    accepted.put("fixtures/*.yml", FixtureFile.KEYS);
    List<String> missing = new ArrayList<>();
    accepted.forEach(
        (file, keys) -> {
          for (String key : keys) {
            if (!text.contains("\n| `" + key + "` |")) {
              missing.add(file + ": " + key);
            }
          }
        });
    assertTrue(
        missing.isEmpty(),
        "keys the loader accepts that docs/reference/yaml.md does not"
            + " list (add a row '| `key` | type | default | meaning | check's message |'):\n"
            + String.join("\n", missing));
  }
}
