package dev.streamform.teststreams.report;

import dev.streamform.policies.schema.InvisibleCharacters;
import java.io.StringWriter;
import java.util.Locale;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * Writes HTML and SVG elements through the JDK's {@link XMLStreamWriter}, so every attribute and
 * text is escaped and every element closed by construction; nothing is pasted together as text.
 * Attributes are given as name, value pairs. An element written with {@link #element} always gets a
 * closing tag (HTML has no self-closing {@code <td/>}); {@link #empty} is for SVG shapes and HTML
 * void elements. A control character in a text or an attribute (a fixture's value quoted as it is)
 * is written as its escape, {@code \\u0001} ({@link InvisibleCharacters#controlsEscaped}): the
 * writer would write it as it is, which neither HTML nor XML allows (ADR 0240).
 */
public final class Markup {
  private final StringWriter text = new StringWriter();
  private final XMLStreamWriter out;

  public Markup() {
    try {
      out = XMLOutputFactory.newInstance().createXMLStreamWriter(text);
    } catch (XMLStreamException e) {
      throw new IllegalStateException("the JDK has no XML writer", e);
    }
  }

  /** Writes {@code <!DOCTYPE html>}. */
  public Markup doctypeHtml() {
    return call(() -> out.writeDTD("<!DOCTYPE html>\n"));
  }

  /** Opens {@code name} with {@code attributes}; {@link #close} ends it. */
  public Markup open(String name, String... attributes) {
    return call(
        () -> {
          out.writeStartElement(name);
          attributes(attributes);
        });
  }

  /** An element without content. */
  public Markup empty(String name, String... attributes) {
    return call(
        () -> {
          out.writeEmptyElement(name);
          attributes(attributes);
        });
  }

  /** An element holding {@code text} (possibly empty). */
  public Markup element(String name, String text, String... attributes) {
    open(name, attributes);
    text(text);
    return close();
  }

  public Markup text(String s) {
    return call(() -> out.writeCharacters(s == null ? "" : InvisibleCharacters.controlsEscaped(s)));
  }

  /** Closes the innermost open element. */
  public Markup close() {
    return call(out::writeEndElement);
  }

  /** A coordinate as SVG takes it: at most one decimal, a dot, no exponent. */
  public static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  /** What was written. */
  @Override
  public String toString() {
    call(out::flush);
    return text.toString();
  }

  private void attributes(String[] attributes) throws XMLStreamException {
    if (attributes.length % 2 != 0) {
      throw new IllegalArgumentException("attributes come as name, value pairs");
    }
    for (int i = 0; i < attributes.length; i += 2) {
      if (attributes[i + 1] != null) {
        out.writeAttribute(attributes[i], InvisibleCharacters.controlsEscaped(attributes[i + 1]));
      }
    }
  }

  private interface Write {
    void run() throws XMLStreamException;
  }

  private Markup call(Write w) {
    try {
      w.run();
      return this;
    } catch (XMLStreamException e) {
      throw new IllegalStateException("writing markup to memory failed", e);
    }
  }
}
