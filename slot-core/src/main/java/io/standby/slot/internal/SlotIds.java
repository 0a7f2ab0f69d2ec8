package io.standby.slot.internal;

import io.standby.slot.SlotView;
import java.util.Comparator;

/** Slot ids are {@code slot-0 ... slot-(N-1)}; this orders them by number, so slot-2 comes before slot-10. */
public final class SlotIds {

    public static final String PREFIX = "slot-";

    public static final Comparator<String> NATURAL =
            Comparator.comparingLong(SlotIds::number).thenComparing(Comparator.naturalOrder());

    public static final Comparator<SlotView> ORDER = Comparator.comparing(SlotView::id, NATURAL);

    private SlotIds() {}

    public static String of(int index) {
        return PREFIX + index;
    }

    /** The number in {@code slot-N}, or {@link Long#MAX_VALUE} for ids of another shape. */
    static long number(String id) {
        if (id.startsWith(PREFIX)) {
            try {
                return Long.parseLong(id.substring(PREFIX.length()));
            } catch (NumberFormatException e) {
                return Long.MAX_VALUE;
            }
        }
        return Long.MAX_VALUE;
    }
}
