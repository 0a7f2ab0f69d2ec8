package io.standby.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with left-aligned columns, as kubectl prints them. */
final class Table {

    private final String[] header;
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        this.header = header;
    }

    Table row(Object... cells) {
        String[] text = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            text[i] = cells[i] == null ? "-" : String.valueOf(cells[i]);
        }
        rows.add(text);
        return this;
    }

    void print(PrintWriter out) {
        print(out, true);
    }

    /** Without the header line, for scripts that read the rows alone. */
    void printRows(PrintWriter out) {
        print(out, false);
    }

    private void print(PrintWriter out, boolean headers) {
        List<String[]> lines = new ArrayList<>(rows.size() + 1);
        if (headers) {
            lines.add(header);
        }
        lines.addAll(rows);
        int columns = header.length;
        int[] widths = new int[columns];
        for (String[] row : lines) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : lines) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(row[i]);
                if (i < columns - 1) {
                    line.append(" ".repeat(widths[i] + 2 - row[i].length()));
                }
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }
}
