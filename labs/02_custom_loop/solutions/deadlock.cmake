# Exercise 4's answer: a gather describes itself by the children it still
# waits for, each task by its name and every other future as before.
lab_edit(chapters/02_custom_loop/src/future.c REPLACE [[
        snprintf(buf, size, "a gather of %zu (%zu not done)", g->count, g->remaining);
]] WITH [[
        size_t used = (size_t)snprintf(buf, size, "a gather of %zu (not done:", g->count);
        const char *comma = "";
        for (size_t i = 0; i < g->count && used < size; i++) {
            const taal_future *child = g->slots[i].child;
            if (taal_future_done(child))
                continue;
            char what[96];
            if (child->kind == TAAL_FUTURE_TASK)
                taal_task_name((const taal_task *)child, what, sizeof what);
            else
                taal__future_describe(child, what, sizeof what);
            used += (size_t)snprintf(buf + used, size - used, "%s %s", comma, what);
            comma = ",";
        }
        if (used < size)
            snprintf(buf + used, size - used, ")");
]])
