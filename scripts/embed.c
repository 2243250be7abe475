/*
 * embed: the build's tool that puts the page's files (web/*) into the
 * binary: writes a C file defining web_assets[] (bot/web.h) with each
 * file's bytes, its name (without the directory) and its content type by
 * its extension.  The Makefile builds it first and runs it whenever a
 * file of web/ changes; no xxd or other tool needed.
 *
 * usage: embed OUT.c FILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *type_of(const char *name)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".png", "image/png" },
		{ ".svg", "image/svg+xml" },
		{ ".ico", "image/x-icon" },
	};
	size_t n = strlen(name), i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t e = strlen(types[i].ext);

		if (n > e && !strcmp(name + n - e, types[i].ext))
			return types[i].type;
	}
	return "application/octet-stream";
}

static int emit(FILE *out, int k, const char *path)
{
	FILE *in = fopen(path, "rb");
	int c;
	long n = 0;

	if (!in) {
		perror(path);
		return -1;
	}
	fprintf(out, "static const unsigned char a%d[] = {", k);
	while ((c = getc(in)) != EOF)
		fprintf(out, "%s%d,", n++ % 20 ? "" : "\n\t", c);
	fprintf(out, "\n\t0\n};\n\n");
	if (ferror(in)) {
		perror(path);
		fclose(in);
		return -1;
	}
	fclose(in);
	return 0;
}

int main(int argc, char **argv)
{
	FILE *out;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: embed OUT.c FILE...\n");
		return 2;
	}
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	fprintf(out, "/* made by scripts/embed.c from web/: do not edit */\n"
		"#include \"bot/web.h\"\n\n");
	for (i = 2; i < argc; i++)
		if (emit(out, i - 2, argv[i])) {
			fclose(out);
			remove(argv[1]);
			return 1;
		}
	fprintf(out, "const struct web_asset web_assets[] = {\n");
	for (i = 2; i < argc; i++) {
		const char *base = strrchr(argv[i], '/');

		base = base ? base + 1 : argv[i];
		fprintf(out, "\t{ \"%s\", \"%s\", a%d, sizeof(a%d) - 1 },\n", base, type_of(base),
			i - 2, i - 2);
	}
	fprintf(out, "\t{ 0 }\n};\n\nconst size_t web_nassets = %d;\n", argc - 2);
	if (fclose(out)) {
		perror(argv[1]);
		remove(argv[1]);
		return 1;
	}
	return 0;
}
