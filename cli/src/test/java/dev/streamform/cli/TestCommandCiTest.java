package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code streamform test} as CI runs it (issue 20): several paths, {@code --junit-xml} valid
 * against the JUnit XML schema and read back, {@code --format json}, colour only when asked or on a
 * terminal, results on stdout and warnings on stderr as {@code check} does; and {@code check}
 * refusing what used to crash {@code test}.
 */
class TestCommandCiTest {
  private static final Path TIME = Path.of("../test-streams/fixtures/time");

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private Path late;
  private Path retention;

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
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

  @BeforeEach
  void projects() throws Exception {
    late = dir.resolve("late-event");
    retention = dir.resolve("retention");
    copy(TIME.resolve("late-event"), late);
    copy(TIME.resolve("retention"), retention);
    // a failing fixture beside the passing one, and one spreading a key over two partitions
    Files.writeString(
        late.resolve("fixtures/wrong.yml"),
        Files.readString(late.resolve("fixtures/late_event.yml"))
            .replace("total_spend: 30 }", "total_spend: 29 }"));
    Files.writeString(
        retention.resolve("fixtures/spread.yml"),
        """
        model: customer_metrics
        given:
          - event: { customer_id: 42, amount: 10, ordered_at: "2026-08-30T10:00:00Z" }
          - event: { customer_id: 42, amount: 5, ordered_at: "2026-08-30T10:01:00Z" }
            partition: 1
        expect:
          - { op: insert, customer_id: 42, total_spend: 10 }
          - { op: update, customer_id: 42, total_spend: 15 }
        """);
  }

  @Test
  void junitXmlIsValidAndSaysWhatRanFailedAndHowLong() throws Exception {
    Path xml = dir.resolve("reports/streamform.xml");

    assertThat(
        run("test", late.toString(), retention.toString(), "--junit-xml", xml.toString()), is(1));

    validate(xml);
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
    Element suites = doc.getDocumentElement();
    assertThat(suites.getTagName(), is("testsuites"));
    assertThat(suites.getAttribute("tests"), is("4"));
    assertThat(suites.getAttribute("failures"), is("1"));
    assertThat(suites.getAttribute("errors"), is("0"));
    assertThat(suites.hasAttribute("skipped"), is(false));
    NodeList suiteList = suites.getElementsByTagName("testsuite");
    assertThat(suiteList.getLength(), is(2));
    assertThat(((Element) suiteList.item(0)).getAttribute("name"), is(late.toString()));
    assertThat(((Element) suiteList.item(0)).getAttribute("tests"), is("2"));
    List<String> cases = new ArrayList<>();
    NodeList caseList = doc.getElementsByTagName("testcase");
    for (int i = 0; i < caseList.getLength(); i++) {
      Element c = (Element) caseList.item(i);
      cases.add(c.getAttribute("classname") + "." + c.getAttribute("name"));
      assertThat(Double.parseDouble(c.getAttribute("time")) > 0, is(true));
    }
    assertThat(
        cases,
        is(
            List.of(
                "streamform.late-event.late_event",
                "streamform.late-event.wrong",
                "streamform.retention.retention",
                "streamform.retention.spread")));
    Element failure = (Element) doc.getElementsByTagName("failure").item(0);
    assertThat(((Element) failure.getParentNode()).getAttribute("name"), is("wrong"));
    assertThat(failure.getAttribute("message"), containsString("`total_spend` is 30, expected 29"));
    assertThat(failure.getTextContent(), startsWith("wrong (model customer_metrics)\nFAIL\n"));
    assertThat(err.toString(), containsString("wrote JUnit XML to " + xml));
  }

  @Test
  void failFastReportsTheRestAsSkippedInValidJunitXml() throws Exception {
    Path xml = dir.resolve("fast.xml");

    assertThat(
        run(
            "test",
            late.toString(),
            retention.toString(),
            "--fail-fast",
            "--junit-xml",
            xml.toString()),
        is(1));

    validate(xml);
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
    assertThat(doc.getElementsByTagName("skipped").getLength(), is(2));
    Element second = (Element) doc.getElementsByTagName("testsuite").item(1);
    assertThat(second.getAttribute("skipped"), is("2"));
    assertThat(
        out.toString(),
        containsString("2 fixtures on direct: 1 passed, 1 failed; 2 not run (--fail-fast)"));
  }

  private void validate(Path xml) throws Exception {
    SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI)
        .newSchema(new StreamSource(getClass().getResourceAsStream("/junit.xsd")))
        .newValidator()
        .validate(new StreamSource(xml.toFile()));
  }

  @Test
  void jsonIsOneObjectOnStdoutWithEachFixturesStatusAndTime() throws Exception {
    assertThat(run("test", late.toString(), "--format", "json"), is(1));

    JsonNode json = new ObjectMapper().readTree(out.toString());
    assertThat(json.get("passed").asInt(), is(1));
    assertThat(json.get("failed").asInt(), is(1));
    assertThat(json.get("fixtures").size(), is(2));
    JsonNode wrong = json.get("fixtures").get(1);
    assertThat(wrong.get("name").asText(), is("wrong"));
    assertThat(wrong.get("status").asText(), is("failed"));
    assertThat(wrong.get("seconds").asDouble() > 0, is(true));
    assertThat(wrong.get("report").asText(), containsString("^ first difference"));
    assertThat(json.get("failed_fixtures").toString(), is("[\"wrong\"]"));
  }

  @Test
  void textListsTheFailedFixturesBeforeTheSummaryAndWarningsGoToStderr() {
    assertThat(run("test", late.toString(), retention.toString()), is(1));

    String text = out.toString();
    assertThat(
        text, containsString("failed fixtures:\n  wrong  " + late.resolve("fixtures/wrong.yml")));
    assertThat(
        text.trim().lines().reduce((a, b) -> b).get(),
        is("4 fixtures on direct: 3 passed, 1 failed"));
    assertThat(text, not(containsString("warning:")));
    assertThat(
        err.toString(),
        containsString(
            "warning: fixtures/spread.yml:4: event 2: key customer_id=42"
                + " has events on partitions 0 and 1"));
    // not a terminal: no colour
    assertThat(text, not(containsString("\u001B[")));
  }

  @Test
  void colourWhenAskedFor() {
    assertThat(run("test", late.toString(), "--select", "late_event", "--color", "always"), is(0));
    assertThat(out.toString(), containsString("\u001B[32mPASS\u001B[0m"));
  }

  @Test
  void checkWarnsAboutASpreadKeyOnStderrAndStillPasses() {
    assertThat(run("check", retention.toString()), is(0));
    assertThat(out.toString(), startsWith("ok: "));
    assertThat(err.toString(), containsString("warning: fixtures/spread.yml:4: event 2"));
  }

  @Test
  void checkRefusesWhatUsedToCrashTestWithFileLineKeyAndFix() throws Exception {
    Path models = retention.resolve("streamform.yml");
    Files.writeString(models, Files.readString(models).replace("retention: 10m", "retention: 0s"));
    assertThat(run("check", retention.toString()), is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform.yml:5: model 'customer_metrics', key"
                + " 'retention': retention cannot be 0s"));

    Files.writeString(
        models, Files.readString(models).replace("retention: 0s", "retention: 99999999999999d"));
    StringWriter again = new StringWriter();
    assertThat(
        Streamform.run(new PrintWriter(out), new PrintWriter(again), "check", retention.toString()),
        is(1));
    assertThat(
        again.toString(),
        containsString(
            "streamform.yml:5: model 'customer_metrics', key 'retention': bad duration:"
                + " '99999999999999d' is too long a duration: the longest is 36500d"));
    assertThat(again.toString(), not(containsString("internal error")));
  }
}
