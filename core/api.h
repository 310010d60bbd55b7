/* TN_API marks the part of core that libgsttensor-1.0 exports: the
 * functions declared in the installed core headers.  Everything else in
 * core is compiled with hidden visibility and stays private to the library
 * and the plugin, each of which links core statically. */
#ifndef TN_API_H
#define TN_API_H

#if defined(__GNUC__)
#define TN_API __attribute__ ((visibility ("default")))
#else
#define TN_API
#endif

#endif
