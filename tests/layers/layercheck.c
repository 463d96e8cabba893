/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Linked with one component's whole static library and only the components
 * it declares (CMakeLists.txt, cgm_component): the link fails when the
 * component calls into one above it. Runs nothing. */
int main(void) {
  return 0;
}
