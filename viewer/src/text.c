/* tplan viewer: 2D overlay (text with stb_easy_font from libstb-dev, filled rectangles), in pixel
 * coordinates with the origin at the top-left corner. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* stb_easy_font is a header of static functions; not all of them are used here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

void tpVText_Begin(int width, int height)
{
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, width, height, 0, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_LIGHTING);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glEnableClientState(GL_VERTEX_ARRAY);
}

void tpVText_End(void)
{
    glDisableClientState(GL_VERTEX_ARRAY);
    glEnable(GL_DEPTH_TEST);
}

void tpVText_Size(const char *text, float scale, float *w, float *h)
{
    *w = (float)stb_easy_font_width((char *)text) * scale;
    *h = (float)stb_easy_font_height((char *)text) * scale;
}

float tpVText_Draw(float x, float y, float scale, const char *text, const float rgba[4])
{
    /* stb_easy_font: about 270 bytes per character worst case; draw long text line by line */
    static char buf[256 * 1024];
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy) {
        return 0;
    }
    memcpy(copy, text, len + 1);
    float width = 0;
    char *line = copy;
    float ly = y;
    while (line) {
        char *nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
        }
        int nquads = stb_easy_font_print(0, 0, line, NULL, buf, (int)sizeof buf);
        glPushMatrix();
        glTranslatef(x, ly, 0);
        glScalef(scale, scale, 1);
        glColor4fv(rgba);
        glVertexPointer(2, GL_FLOAT, 16, buf);
        glDrawArrays(GL_QUADS, 0, nquads * 4);
        glPopMatrix();
        float lw = (float)stb_easy_font_width(line) * scale;
        width = lw > width ? lw : width;
        ly += 12 * scale;
        line = nl ? nl + 1 : NULL;
    }
    free(copy);
    return width;
}

void tpVText_Rect(float x, float y, float w, float h, const float rgba[4])
{
    glColor4fv(rgba);
    glBegin(GL_QUADS);
    glVertex2f(x, y), glVertex2f(x + w, y), glVertex2f(x + w, y + h), glVertex2f(x, y + h);
    glEnd();
}
