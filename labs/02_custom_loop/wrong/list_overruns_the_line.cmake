# A wrong answer to exercise 4, the list built with strcat's bounded
# cousin: strncat(buf, s, size - strlen(buf)), "at most the room left".
# But strncat's count leaves out the '\0' it adds after what it copies:
# once the list fills the line, that '\0' lands one byte past the buffer,
# the deadlock report's `what` on the stack. An ordinary build passes
# every test (the stray byte falls where nothing is read again); only the
# sanitizer pass sees it, as a stack-buffer-overflow in
# a_long_list_is_cut_short_safely.
lab_edit(chapters/02_custom_loop/src/future.c REPLACE [[
            used += (size_t)snprintf(buf + used, size - used, "%s %s", comma, what);
            comma = ",";
        }
        if (used < size)
            snprintf(buf + used, size - used, ")");
]] WITH [[
            strncat(buf, comma, size - strlen(buf));
            strncat(buf, " ", size - strlen(buf));
            strncat(buf, what, size - strlen(buf));
            used = strlen(buf);
            comma = ",";
        }
        strncat(buf, ")", size - strlen(buf));
]])
set(CAUGHT_BY "exercise 4")
set(MESSAGE "a_long_list_is_cut_short_safely\n[^\n]*failed under the sanitizers [^\n]*AddressSanitizer: stack-buffer-overflow")
# A memory mistake: graded with the sanitizer pass (labs/check.cmake),
# which must catch it; without it, it scores full marks.
set(SANITIZE ON)
